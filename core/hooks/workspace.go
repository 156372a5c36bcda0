package hooks

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// Held lists what an unapproved workspace profile would have done.
type Held struct {
	Hooks       []schema.Hook       `json:"hooks,omitempty"`
	Servers     []string            `json:"servers,omitempty"`
	AllowRules  []schema.PolicyRule `json:"allowRules,omitempty"`
	Extensions  []string            `json:"extensions,omitempty"`
	Directories []string            `json:"directories,omitempty"`
	Mode        string              `json:"mode,omitempty"`          // a loosened mode that was reset
	Default     string              `json:"defaultAction,omitempty"` // a loosened default that was reset
}

// Empty reports whether nothing was held back.
func (h Held) Empty() bool {
	return len(h.Hooks) == 0 && len(h.Servers) == 0 && len(h.AllowRules) == 0 &&
		len(h.Extensions) == 0 && len(h.Directories) == 0 && h.Mode == "" && h.Default == ""
}

// GateWorkspace returns a copy of r with everything the workspace layer
// contributed that runs code or loosens policy taken out, for use until
// the user approves the workspace profile: its hooks, MCP servers,
// workspace extensions, extension directories, allow rules and a
// loosened mode (auto_edit, yolo) or default action (allow). Deny and ask
// rules stay: they only tighten. r is not changed. With approved set, or
// no workspace, the copy is unchanged.
//
// A loosened mode or default action is reset only when the workspace layer
// is the one that set it (Resolved.ModeScope, DefaultActionScope).
func GateWorkspace(r *schema.Resolved, approved bool) (*schema.Resolved, Held) {
	g := *r
	var held Held
	if approved || !hasWorkspaceLayer(r) {
		return &g, held
	}
	g.Profile.Hooks.Definitions, g.HookScopes, held.Hooks = gateHooks(r)
	g.Profile.Policy.Rules, g.RuleScopes, held.AllowRules = gateRules(r)
	g.Profile.MCP.Servers, g.ServerScopes, held.Servers = gateServers(r)
	g.Profile.Extensions.Directories, g.DirectoryScopes, held.Directories = gateDirs(r)
	g.Extensions, held.Extensions = gateExtensions(r, held.Directories)
	switch g.Profile.Policy.Mode {
	case "auto_edit", "yolo":
		if r.ModeScope == schema.ScopeWorkspace {
			held.Mode, g.Profile.Policy.Mode = g.Profile.Policy.Mode, "default"
		}
	}
	if g.Profile.Policy.DefaultAction == "allow" && r.DefaultActionScope == schema.ScopeWorkspace {
		held.Default, g.Profile.Policy.DefaultAction = "allow", "ask"
	}
	if !held.Empty() {
		g.Problems = append(slices.Clone(r.Problems), heldProblem(r.Workspace, held))
	}
	return &g, held
}

func hasWorkspaceLayer(r *schema.Resolved) bool {
	for _, l := range r.Layers {
		if l.Scope == schema.ScopeWorkspace {
			return true
		}
	}
	for _, s := range r.ServerScopes {
		if s == schema.ScopeWorkspace {
			return true
		}
	}
	return slices.Contains(r.HookScopes, schema.ScopeWorkspace) || slices.Contains(r.RuleScopes, schema.ScopeWorkspace) ||
		slices.Contains(r.DirectoryScopes, schema.ScopeWorkspace)
}

func scopeAt(s []schema.Scope, i int) schema.Scope {
	if i < len(s) {
		return s[i]
	}
	return schema.ScopeWorkspace // unknown origin: least trusted
}

func gateHooks(r *schema.Resolved) ([]schema.Hook, []schema.Scope, []schema.Hook) {
	var keep, held []schema.Hook
	var scopes []schema.Scope
	for i, h := range r.Profile.Hooks.Definitions {
		if s := scopeAt(r.HookScopes, i); s != schema.ScopeWorkspace {
			keep, scopes = append(keep, h), append(scopes, s)
		} else {
			held = append(held, h)
		}
	}
	return keep, scopes, held
}

func gateRules(r *schema.Resolved) ([]schema.PolicyRule, []schema.Scope, []schema.PolicyRule) {
	var keep, held []schema.PolicyRule
	var scopes []schema.Scope
	for i, rule := range r.Profile.Policy.Rules {
		s := scopeAt(r.RuleScopes, i)
		if s == schema.ScopeWorkspace && rule.Action == "allow" {
			held = append(held, rule)
			continue
		}
		keep, scopes = append(keep, rule), append(scopes, s)
	}
	return keep, scopes, held
}

func gateServers(r *schema.Resolved) (map[string]schema.MCPServer, map[string]schema.Scope, []string) {
	keep := maps.Clone(r.Profile.MCP.Servers)
	scopes := maps.Clone(r.ServerScopes)
	var held []string
	for name := range r.Profile.MCP.Servers {
		if s, ok := r.ServerScopes[name]; !ok || s == schema.ScopeWorkspace {
			delete(keep, name)
			delete(scopes, name)
			held = append(held, name)
		}
	}
	slices.Sort(held)
	return keep, scopes, held
}

func gateDirs(r *schema.Resolved) ([]string, []schema.Scope, []string) {
	var keep, held []string
	var scopes []schema.Scope
	for i, d := range r.Profile.Extensions.Directories {
		if s := scopeAt(r.DirectoryScopes, i); s != schema.ScopeWorkspace {
			keep, scopes = append(keep, d), append(scopes, s)
		} else {
			held = append(held, d)
		}
	}
	return keep, scopes, held
}

// gateExtensions drops workspace extensions and those discovered in a
// directory the workspace declared (the discovery root, not a substring).
func gateExtensions(r *schema.Resolved, heldDirs []string) ([]schema.Extension, []string) {
	roots := map[string]bool{}
	for _, d := range heldDirs {
		roots[filepath.Clean(d)] = true
	}
	var keep []schema.Extension
	var held []string
	for _, x := range r.Extensions {
		fromHeldDir := x.Scope == schema.ScopeDirectory && roots[filepath.Dir(filepath.Clean(x.Dir))]
		if x.Scope == schema.ScopeWorkspace || fromHeldDir {
			held = append(held, x.Name)
			continue
		}
		keep = append(keep, x)
	}
	return keep, held
}

func heldProblem(ws string, h Held) schema.Problem {
	return schema.Problem{
		Severity: "warning",
		File:     filepath.Join(ws, "ollm.cue"),
		Message: fmt.Sprintf("workspace profile not approved: held back %d hooks, %d MCP servers, %d allow rules, %d extensions, %d extension directories%s",
			len(h.Hooks), len(h.Servers), len(h.AllowRules), len(h.Extensions), len(h.Directories), modeNote(h)),
		Fix: "review with `ollm trust` and approve it there; deny and ask rules already apply",
	}
}

func modeNote(h Held) string {
	s := ""
	if h.Mode != "" {
		s += ", mode " + h.Mode + " reset to default"
	}
	if h.Default != "" {
		s += ", defaultAction allow reset to ask"
	}
	return s
}

// WorkspaceApproved reports whether the workspace profile of ws is
// approved at its current digest. A workspace without ollm.cue, ollm.lock
// or .mcp.json has nothing to approve and counts as approved.
func WorkspaceApproved(home store.Home, ws store.Workspace) (approved bool, digest string, err error) {
	digest, err = store.WorkspaceDigest(ws)
	if err != nil || digest == "" {
		return err == nil, digest, err
	}
	t, err := store.LoadTrustedWorkspaces(home.TrustedWorkspaces())
	if err != nil {
		return false, digest, err
	}
	return t.Approved(ws.Root, digest), digest, nil
}
