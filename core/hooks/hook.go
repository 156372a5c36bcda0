package hooks

import (
	"time"

	"github.com/ollm/ollm/schema"
)

// Hook is one registered hook: its definition and where it came from.
type Hook struct {
	Name      string
	Event     Event
	Def       schema.Hook  // command, args, env, timeout, matcher, flags, dialect
	Scope     schema.Scope // discovery root kind; decides trust
	Extension string       // "" for hooks declared in a profile
	Root      string       // discovery root (workspace, OLLM_HOME, extensions dir); part of the stable id
	Dir       string       // working directory: the extension root for extension hooks
	// InProject: the hook runs in the session's directory although it
	// belongs to an extension (Dir), as Claude Code runs plugin hooks.
	InProject bool
	Env       map[string]string // extension settings as environment variables
	// Secrets are the values of its extension's sensitive settings: cut
	// out of its stderr log, its failure text and its messages.
	Secrets []string
	Hash    string // content hash pinned by the lock; "" means compute it
	// Version is the extension manifest's version (metadata.hookVersion);
	// "" for profile hooks.
	Version string
	// Declared is the event name the hook was declared under (an alias
	// such as "pre-tool-call"), sent as metadata.eventAlias when it is not
	// the canonical name.
	Declared string
	// Sandbox is what the hook's process may do as declared: the hook's
	// own sandbox, else its extension manifest's permissions; zero means
	// none (the profile's sandbox.hooks, then the built-in defaults).
	// An approval covers it together with the hash.
	Sandbox schema.Sandbox
}

// Permissions are the permissions an approval of h records: its declared
// sandbox, nil when it declares none.
func (h *Hook) Permissions() *schema.Sandbox { return h.Sandbox.Declared() }

// declaredSandbox is a hook's own sandbox, else its extension's.
func declaredSandbox(own, extension *schema.Sandbox) schema.Sandbox {
	switch {
	case own != nil:
		return *own.Clone()
	case extension != nil:
		return *extension.Clone()
	}
	return schema.Sandbox{}
}

// QualifiedName is "extension/name", or the bare name for profile hooks.
func (h *Hook) QualifiedName() string {
	if h.Extension == "" {
		return h.Name
	}
	return h.Extension + "/" + h.Name
}

// ID is the stable trust id: source root, extension, event and hook name.
// It does not change when the hook's content changes; the hash does.
func (h *Hook) ID() string {
	root := h.Root
	if root == "" {
		root = string(h.Scope)
	}
	return root + "::" + h.Extension + "::" + string(h.Event) + "::" + h.Name
}

// Dialect returns the hook's dialect, "ollm" by default.
func (h *Hook) Dialect() string {
	if h.Def.Dialect == "" {
		return DialectOllm
	}
	return h.Def.Dialect
}

// timeout returns the hook's own timeout or def.
func (h *Hook) timeout(def time.Duration) time.Duration {
	if h.Def.Timeout > 0 {
		return time.Duration(h.Def.Timeout) * time.Millisecond
	}
	return def
}

// Dialects of hook input and output.
const (
	DialectOllm   = "ollm"
	DialectClaude = "claude"
	DialectGemini = "gemini"
)
