package profiles

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ollm/ollm/internal/claudeperm"
	"github.com/ollm/ollm/schema"
)

// Claude Code settings' permissions ({"allow": [...], "deny": [...],
// "ask": [...]} in Claude's rule syntax) become policy rules, named after
// the file and the entry (`ollm policy check` shows them as the rule that
// decided); env is the session's environment for the shell and hooks.
// Allow rules and env widen: a workspace's are held back until the
// workspace is approved, one HeldValue each; deny and ask apply at once.
// The user's ~/.claude/settings.json counts only under
// hooks.claudeUserSettings, as for its hooks. What cannot be honoured is
// one warning naming the file, the key and what to do.

type claudePermissions struct {
	Permissions struct {
		Allow []string `json:"allow"`
		Deny  []string `json:"deny"`
		Ask   []string `json:"ask"`
	} `json:"permissions"`
	Env map[string]any `json:"env"`
}

// claudeSkippedPermissionKeys are permissions keys ollm does not apply,
// with what to do instead.
var claudeSkippedPermissionKeys = map[string]string{
	"defaultMode":                  "set policy.mode in ollm.cue (default, auto_edit, plan, yolo)",
	"additionalDirectories":        "list the directories in tools.extraDirs of ollm.cue",
	"disableBypassPermissionsMode": "nothing to do: a workspace cannot loosen ollm's mode without approval",
}

func mergeClaudePermissions(files []claudeFile, r *schema.Resolved, gated bool, root string) []schema.Problem {
	home, _ := os.UserHomeDir()
	var probs []schema.Problem
	for _, f := range files {
		if f.scope == schema.ScopeUser && !r.Profile.Hooks.ClaudeUserSettings {
			continue
		}
		doc, err := parseJSONDoc(f.path, f.data)
		if err != nil {
			continue // mergeClaudeSettings reported it
		}
		var s claudePermissions
		if err := json.Unmarshal(f.data, &s); err != nil {
			probs = append(probs, schema.Problem{Severity: "warning", File: f.path, Pos: doc.pos("permissions"),
				Message: fmt.Sprintf("Claude Code settings: permissions or env are not in Claude's shape (%v); they are not applied", err),
				Fix:     "make permissions an object of allow, deny and ask lists of rule strings, and env an object of strings"})
			continue
		}
		hold := gated && f.scope == schema.ScopeWorkspace
		probs = append(probs, skippedPermissionKeys(doc, f)...)
		for _, list := range []struct {
			action string
			rules  []string
		}{{"deny", s.Permissions.Deny}, {"ask", s.Permissions.Ask}, {"allow", s.Permissions.Allow}} {
			for i, spec := range list.rules {
				key := fmt.Sprintf("permissions.%s[%d]", list.action, i)
				pos := doc.pos("permissions", list.action, i)
				name := fmt.Sprintf("%s %s: %s", shortPath(f.path, root, home), key, spec)
				rule, err := claudeperm.Convert(spec, list.action, name, claudeperm.Base{Root: root, Home: home})
				if err != nil {
					probs = append(probs, schema.Problem{Severity: "warning", File: f.path, Pos: pos,
						Message: fmt.Sprintf("Claude Code %s %q skipped: %v", key, spec, err),
						Fix:     "write an ollm policy rule for it in ollm.cue (docs/policy.md), or remove it to silence this"})
					continue
				}
				if hold && list.action == "allow" {
					r.Trust.Held = append(r.Trust.Held, schema.HeldValue{Field: "policy.rules[] (Claude Code " + key + ")",
						File: f.path, Pos: pos, Value: spec, Reason: "an allow rule runs tools without asking"})
					continue
				}
				r.Profile.Policy.Rules = append(r.Profile.Policy.Rules, rule.Policy)
				r.RuleScopes = append(r.RuleScopes, f.scope)
			}
		}
		probs = append(probs, claudeEnv(doc, f, s.Env, hold, r)...)
	}
	return probs
}

func skippedPermissionKeys(doc jsonDoc, f claudeFile) []schema.Problem {
	var raw struct {
		Permissions map[string]json.RawMessage `json:"permissions"`
	}
	_ = json.Unmarshal(f.data, &raw)
	keys := make([]string, 0, len(raw.Permissions))
	for k := range raw.Permissions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var probs []schema.Problem
	for _, k := range keys {
		switch k {
		case "allow", "deny", "ask":
			continue
		}
		fix, known := claudeSkippedPermissionKeys[k]
		if !known {
			fix = "remove it to silence this"
		}
		probs = append(probs, schema.Problem{Severity: "warning", File: f.path, Pos: doc.pos("permissions", k),
			Message: fmt.Sprintf("Claude Code permissions.%s is not applied by ollm", k), Fix: fix})
	}
	return probs
}

// claudeEnv sets the session's environment from env (a workspace's held
// back until it is approved). Later files win on a name.
func claudeEnv(doc jsonDoc, f claudeFile, env map[string]any, hold bool, r *schema.Resolved) []schema.Problem {
	if len(env) == 0 {
		return nil
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	if hold {
		r.Trust.Held = append(r.Trust.Held, schema.HeldValue{Field: "env (Claude Code settings)", File: f.path, Pos: doc.pos("env"),
			Value: strings.Join(names, ", "), Reason: "variables change what the shell and hooks run"})
		return nil
	}
	var probs []schema.Problem
	for _, k := range names {
		v, ok := env[k].(string)
		if !ok {
			if n, isNum := env[k].(float64); isNum {
				v, ok = fmt.Sprint(n), true
			}
		}
		if !ok || k == "" || strings.ContainsAny(k, "=\x00") {
			probs = append(probs, schema.Problem{Severity: "warning", File: f.path, Pos: doc.pos("env", k),
				Message: fmt.Sprintf("Claude Code env.%s is not a string; not set", k), Fix: "give it a string value"})
			continue
		}
		if r.Env == nil {
			r.Env = map[string]string{}
		}
		r.Env[k] = v
	}
	return probs
}

// shortPath names a settings file as the user knows it: relative to the
// workspace, or under ~.
func shortPath(p, root, home string) string {
	for _, base := range []struct{ dir, prefix string }{{root, ""}, {home, "~/"}} {
		if base.dir == "" {
			continue
		}
		if rel, err := filepath.Rel(base.dir, p); err == nil && !strings.HasPrefix(rel, "..") {
			return base.prefix + rel
		}
	}
	return p
}
