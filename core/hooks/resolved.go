package hooks

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/ollm/ollm/schema"
)

// BuildOptions say what FromResolved cannot read from the profile.
type BuildOptions struct {
	Home   string                       // OLLM_HOME: the root of user-profile hooks
	ExtEnv map[string]map[string]string // extension -> its settings as env vars
	// ExtSecrets: extension -> the values of its sensitive settings
	// (ext.Secrets), kept out of its hooks' logs and failure text.
	ExtSecrets map[string][]string
}

// Register order of design.md: builtin, user, user extensions, workspace,
// workspace extensions; extensions loaded with --ext come last.
func rank(scope schema.Scope, extension bool) int {
	switch {
	case scope == schema.ScopeBuiltin:
		return 0
	case scope == schema.ScopeUser && !extension:
		return 1
	case scope == schema.ScopeWorkspace && !extension:
		return 3
	case scope == schema.ScopeWorkspace:
		return 4
	case scope == schema.ScopeFlag:
		return 5
	}
	return 2 // user, directory and store extensions
}

type ranked struct {
	rank int
	h    *Hook
}

// FromResolved builds the registry of a resolved profile in registration
// order, with manifest order kept within one extension and event. Hooks
// that cannot be registered are reported as problems and left out.
func FromResolved(r *schema.Resolved, o BuildOptions) (*Registry, []schema.Problem) {
	var all []ranked
	var probs []schema.Problem
	for i, def := range r.Profile.Hooks.Definitions {
		scope := schema.ScopeWorkspace // unknown origin: least trusted
		if i < len(r.HookScopes) {
			scope = r.HookScopes[i]
		}
		h, err := profileHook(def, scope, r.Workspace, o.Home)
		if err != nil {
			probs = append(probs, eventProblem(schema.Problem{}, err))
			continue
		}
		all = append(all, ranked{rank(scope, false), h})
	}
	for _, ext := range r.Extensions {
		hs, ps := extensionHooks(r.Profile, ext, o.ExtEnv[ext.Name])
		for _, h := range hs {
			h.Secrets = o.ExtSecrets[ext.Name]
		}
		probs = append(probs, ps...)
		for _, h := range hs {
			all = append(all, ranked{rank(ext.Scope, true), h})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].rank < all[j].rank })
	reg := &Registry{}
	for _, x := range all {
		reg.Register(x.h)
	}
	return reg, probs
}

func profileHook(def schema.Hook, scope schema.Scope, workspace, home string) (*Hook, error) {
	ev, err := ParseEvent(def.Event)
	if err != nil {
		return nil, fmt.Errorf("hook %s: %w", def.Name, err)
	}
	h := &Hook{Name: def.Name, Event: ev, Def: def, Scope: scope, Sandbox: declaredSandbox(def.Sandbox, nil), Declared: def.Event}
	switch scope {
	case schema.ScopeUser:
		h.Root = home
	case schema.ScopeWorkspace:
		h.Root, h.Dir = workspace, workspace
	}
	return h, nil
}

// extensionHooks lists one extension's hooks, applying the profile's
// per-extension switches (hooks.extensions.<name>, extensions.enable).
func extensionHooks(p schema.Profile, ext schema.Extension, env map[string]string) ([]*Hook, []schema.Problem) {
	ov := p.Hooks.Extensions[ext.Name]
	if ov.Enabled != nil && !*ov.Enabled {
		return nil, nil
	}
	if on, set := p.Extensions.Enable[ext.Name]; set && !on {
		return nil, nil
	}
	events := make([]string, 0, len(ext.Manifest.Hooks))
	for k := range ext.Manifest.Hooks {
		events = append(events, k)
	}
	sort.Strings(events)
	var out []*Hook
	var probs []schema.Problem
	for _, key := range events {
		ev, err := ParseEvent(key)
		if err != nil {
			probs = append(probs, eventProblem(schema.Problem{Extension: ext.Name, File: ext.File}, err))
			continue
		}
		for _, def := range ext.Manifest.Hooks[key] {
			if slices.Contains(ov.Disable, def.Name) {
				continue
			}
			if def.Timeout == 0 && ov.Timeout > 0 {
				def.Timeout = ov.Timeout
			}
			if claudeEventNames[key] {
				def.Event = key // a claude hook is told the name it was declared under
			} else {
				def.Event = string(ev)
			}
			out = append(out, &Hook{Name: def.Name, Event: ev, Def: def, Scope: ext.Scope, Extension: ext.Name,
				Root: extRoot(ext), Dir: ext.Dir, InProject: ext.Format == "claude" || ext.Format == "gemini", Env: env, Hash: ext.Hash,
				Sandbox: declaredSandbox(def.Sandbox, ext.Manifest.Permissions), Version: ext.Manifest.Version, Declared: key})
		}
	}
	return out, probs
}

// ProfileOptions fills the engine options the profile decides.
func ProfileOptions(p schema.Hooks, o Options) Options {
	o.Enabled = p.Enabled
	o.TrustWorkspace = p.TrustWorkspace
	o.AllowEnv = p.AllowEnv
	o.MaxMemory, o.MaxFileSize = int64(p.MaxMemoryMB)<<20, int64(p.MaxFileSizeMB)<<20
	if p.Timeout > 0 {
		o.Timeout = time.Duration(p.Timeout) * time.Millisecond
	}
	return o
}
