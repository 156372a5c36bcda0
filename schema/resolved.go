package schema

// Scope says which discovery root an extension or hook came from. Trust is
// decided by scope, never by looking at a path.
type Scope string

const (
	ScopeBuiltin   Scope = "builtin"   // embedded in the binary
	ScopeUser      Scope = "user"      // $OLLM_HOME/profile.cue, $OLLM_HOME/extensions
	ScopeDirectory Scope = "directory" // extensions.directories (declared by a trusted layer)
	ScopeWorkspace Scope = "workspace" // <ws>/ollm.cue, <ws>/.ollm/extensions, <ws>/.mcp.json
	ScopeStore     Scope = "store"     // downloaded into the content-addressed store
	ScopeFlag      Scope = "flag"      // --ext PATH for one run
)

// Layer is one input of the resolved profile.
type Layer struct {
	Scope  Scope  `json:"scope"`
	File   string `json:"file"`
	Digest string `json:"digest"` // sha256 of the bytes read
}

// Extension is a discovered, validated extension.
type Extension struct {
	Name     string   `json:"name"`
	Dir      string   `json:"dir"`
	Scope    Scope    `json:"scope"`
	Format   string   `json:"format"` // "ollm" (manifest.json) | "gemini" (gemini-extension.json)
	File     string   `json:"file"`   // the manifest file read
	Hash     string   `json:"hash,omitempty"`
	Shadows  []string `json:"shadows,omitempty"` // dirs of same-named copies it replaced
	Manifest Manifest `json:"manifest"`
	// Import is what was imported and skipped of an extension in another
	// CLI's format (a Claude Code plugin); nil for ollm and Gemini ones.
	Import *ImportReport `json:"import,omitempty"`
}

// Problem is an error kept visible without stopping the load: a skipped
// manifest, a shadowed extension, an ignored workspace setting.
type Problem struct {
	Severity  string `json:"severity"` // "error" | "warning"
	Extension string `json:"extension,omitempty"`
	File      string `json:"file,omitempty"`
	Pos       string `json:"pos,omitempty"` // file:line:col
	Message   string `json:"message"`
	Fix       string `json:"fix,omitempty"`
}

// Resolved is what the runtime loads: the unified profile, the extensions
// discovered for it and every problem met on the way. It is stored as a
// generation and cached by Digest.
type Resolved struct {
	Version    int         `json:"version"`
	Digest     string      `json:"digest"` // over every input
	Workspace  string      `json:"workspace,omitempty"`
	Layers     []Layer     `json:"layers"`
	Profile    Profile     `json:"profile"`
	Extensions []Extension `json:"extensions,omitempty"`
	Problems   []Problem   `json:"problems,omitempty"`
	LockDigest string      `json:"lockDigest,omitempty"`

	// Where each list entry and server of Profile came from, for the trust
	// model: HookScopes[i] is the layer of Profile.Hooks.Definitions[i],
	// RuleScopes[i] of Profile.Policy.Rules[i], ServerScopes[name] of
	// Profile.MCP.Servers[name], DirectoryScopes[i] of
	// Profile.Extensions.Directories[i].
	HookScopes      []Scope          `json:"hookScopes,omitempty"`
	RuleScopes      []Scope          `json:"ruleScopes,omitempty"`
	ServerScopes    map[string]Scope `json:"serverScopes,omitempty"`
	DirectoryScopes []Scope          `json:"directoryScopes,omitempty"`
	// Env is what Claude Code settings files' env sets for the session:
	// given to the shell tool and to hooks (a workspace's only once the
	// workspace is approved).
	Env map[string]string `json:"env,omitempty"`
	// The lowest layer that set policy.mode and policy.defaultAction ("" when
	// only the schema default applies): a workspace that loosens them is
	// gated until approved, a user profile that does is not.
	ModeScope          Scope `json:"modeScope,omitempty"`
	DefaultActionScope Scope `json:"defaultActionScope,omitempty"`
	// TrustedSandbox is the sandbox block of the builtin, team and user
	// layers alone, which the user's own hooks run under (HookSandbox): a
	// workspace's sandbox values apply to its own hooks and tools only.
	// nil when the workspace sets none: Profile.Sandbox is that block.
	TrustedSandbox *SandboxConfig `json:"trustedSandbox,omitempty"`

	// Trust says whether the workspace is approved and, when it is not,
	// what of it was held back.
	Trust Trust `json:"trust"`
}

// HookSandbox is the sandbox block a hook of scope runs under: the whole
// profile's for the workspace's own hooks, the trusted layers' for the
// others (builtin, user, the user's extensions and directories, store and
// --ext extensions).
func (r *Resolved) HookSandbox(scope Scope) SandboxConfig {
	if scope == ScopeWorkspace || r.TrustedSandbox == nil {
		return r.Profile.Sandbox
	}
	return *r.TrustedSandbox
}

// Trust is the workspace's approval state as the loader found it.
type Trust struct {
	// Digest covers everything the workspace brings: every profile file it
	// loads, ollm.lock, .mcp.json, .claude/settings*.json, the
	// .ollm/extensions tree, local paths inside it, the extension
	// directories it names outside it and the directory trees its hooks and
	// servers run code from. "" when the workspace brings nothing; an empty
	// digest is never approved.
	Digest string `json:"digest,omitempty"`
	// Unapprovable says why the workspace can never be approved as it is
	// (a directory its hooks or servers run from is above the hashing
	// limits); "" for a workspace that can be.
	Unapprovable string `json:"unapprovable,omitempty"`
	// Approved: the user approved the workspace at Digest (`ollm trust`),
	// or trusts every workspace (hooks.trustWorkspace in the user profile).
	Approved bool `json:"approved"`
	// Gated: the profile was resolved with the workspace's widening values
	// held back (not approved). Held lists them.
	Gated bool `json:"gated,omitempty"`
	// Held are the widening values of an unapproved workspace (and the
	// layers it brings), in file order.
	Held []HeldValue `json:"held,omitempty"`
	// HeldServers are the workspace's MCP servers (profile and .mcp.json)
	// held back; HeldExtensions the workspace extensions.
	HeldServers    []string `json:"heldServers,omitempty"`
	HeldExtensions []string `json:"heldExtensions,omitempty"`
}

// HeldValue is one widening value held back until the workspace is
// approved.
type HeldValue struct {
	Field  string `json:"field"`  // e.g. mcp.overrides.fs.env, policy.rules[2]
	File   string `json:"file"`   // the layer file
	Pos    string `json:"pos"`    // file:line:col
	Value  string `json:"value"`  // the source text, shortened
	Reason string `json:"reason"` // why it is widening
}
