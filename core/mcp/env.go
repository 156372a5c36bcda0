package mcp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ollm/ollm/core/sandbox"
)

// Lookup finds a variable's value; ok is false when it is unset.
type Lookup = sandbox.Lookup

// Expand substitutes ${VAR} and ${VAR:-default} in s (sandbox.Expand).
func Expand(s string, lookup Lookup) (out string, missing []string) { return sandbox.Expand(s, lookup) }

// envLookup builds a Lookup over KEY=VALUE pairs (later pairs win) and
// extra variables that no environment holds (extensionPath).
func envLookup(environ []string, extra map[string]string) Lookup {
	m := make(map[string]string, len(environ)+len(extra))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	for k, v := range extra {
		m[k] = v
	}
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// Expanded is a server configuration after ${VAR} substitution.
type Expanded struct {
	Command  string
	Args     []string
	Env      []string // the full child environment, KEY=VALUE, sorted
	URL      string
	Headers  map[string]string
	Warnings []string // one per unset variable and field
}

// ExpandServer substitutes variables in command, args, env, url and headers.
// The child environment is the parent's by allow-list (sandbox.Environ:
// PATH, HOME, ... and nothing that proves who you are), then the extension
// settings' variables (settingsEnv), then the server's own env entries,
// each expanded against the whole parent environment and the settings. vars are extra names
// (extensionPath, workspacePath) visible to substitution only.
func ExpandServer(name string, cfg Config, parent []string, settingsEnv, vars map[string]string) Expanded {
	base := make(map[string]string, len(settingsEnv)+len(vars))
	for k, v := range settingsEnv {
		base[k] = v
	}
	for k, v := range vars {
		base[k] = v
	}
	lookup := envLookup(parent, base)
	var x Expanded
	expand := func(field, s string) string {
		out, missing := Expand(s, lookup)
		for _, m := range missing {
			x.Warnings = append(x.Warnings, fmt.Sprintf("MCP server %q: ${%s} in %s is not set; using an empty string (set it in the environment or in the server's env)", name, m, field))
		}
		return out
	}
	x.Command = expand("command", cfg.Command)
	for i, a := range cfg.Args {
		x.Args = append(x.Args, expand(fmt.Sprintf("args[%d]", i), a))
	}
	x.URL = expand("url", cfg.URL)
	x.Headers = expandMap(cfg.Headers, "headers", expand)
	x.Env = mergeEnv(sandbox.ApprovedEnviron(parent, nil), settingsEnv, expandMap(cfg.Env, "env", expand))
	return x
}

func expandMap(m map[string]string, field string, expand func(field, s string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedKeys(m) {
		out[k] = expand(field+"."+k, m[k])
	}
	return out
}

// mergeEnv overlays layers on a KEY=VALUE environment; the result is sorted.
func mergeEnv(parent []string, layers ...map[string]string) []string {
	m := map[string]string{}
	for _, kv := range parent {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	for _, l := range layers {
		for k, v := range l {
			m[k] = v
		}
	}
	out := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, k+"="+m[k])
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
