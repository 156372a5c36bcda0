package hooks

import (
	"sort"
	"strings"
)

// withSessionEnv adds env (Claude Code settings' env, already past the
// trust boundary) to the parent environment, replacing a variable of the
// same name, and names its variables in the allow-list.
func withSessionEnv(parent, allow []string, env map[string]string) ([]string, []string) {
	if len(env) == 0 {
		return parent, allow
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]string, 0, len(parent)+len(env))
	for _, kv := range parent {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := env[k]; !set {
			out = append(out, kv)
		}
	}
	for _, k := range names {
		out = append(out, k+"="+env[k])
	}
	return out, append(append([]string(nil), allow...), names...)
}
