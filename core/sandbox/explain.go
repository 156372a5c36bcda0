package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// Access values of a Verdict.
const (
	AccessWritable = "writable"
	AccessReadOnly = "read-only"
	AccessHidden   = "hidden"
	AccessNoBox    = "not sandboxed"
)

// Verdict is what a sandboxed process may do with one path, and why.
type Verdict struct {
	Path     string `json:"path"`
	Resolved string `json:"resolved,omitempty"` // where a link leads: the kernel decides on it
	Access   string `json:"access"`             // AccessWritable, AccessReadOnly, AccessHidden, AccessNoBox
	Rule     string `json:"rule,omitempty"`     // the rule or denied path that decides
	Why      string `json:"why"`
}

// Explain says whether a process under p (resolved in env) may read or
// write path, and which rule decides. It reads what Resolve decided; the
// kernel applies the same lists.
func Explain(p Policy, env Env, path string) Verdict {
	v := Verdict{Path: filepath.Clean(absPath(path, env))}
	if p.Off() {
		v.Access, v.Why = AccessNoBox, "the sandbox is off (preset off)"
		return v
	}
	real := resolveLinks(v.Path)
	if real != v.Path {
		v.Resolved = real
	}
	for _, h := range hides(p) {
		if within(real, h) {
			v.Access, v.Rule = AccessHidden, h
			v.Why = denyWhy(h, env) + "; an empty read-only mount covers it, as a writable path holds it"
			return v
		}
	}
	if w := longest(real, p.Write); w != "" {
		if pr := longest(real, p.Protect); pr != "" && longest(real, p.Data) == "" {
			v.Access, v.Rule = AccessReadOnly, pr
			v.Why = "decides what ollm or git trusts and runs (a trust file): mounted read-only"
			return v
		}
		v.Access, v.Rule, v.Why = AccessWritable, w, writeWhy(w, p, env)
		if slices.Contains(p.Pin, real) {
			v.Why += "; it cannot be renamed or replaced (a git directory)"
		}
		return v
	}
	if r := longest(real, p.Read); r != "" {
		v.Access, v.Rule, v.Why = AccessReadOnly, r, readWhy(r, env)
		return v
	}
	v.Access = AccessHidden
	var d string
	for _, x := range denied(nil, env) {
		if within(real, x) && len(x) > len(d) {
			d = x
		}
	}
	if d == "" {
		v.Why = "no read rule covers it"
		return v
	}
	v.Rule, v.Why = d, denyWhy(d, env)
	return v
}

func resolveLinks(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	// Not there (yet): its directory's links still count.
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}

func longest(p string, rules []string) string {
	best := ""
	for _, r := range rules {
		if within(p, r) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

func writeWhy(w string, p Policy, env Env) string {
	switch {
	case w == env.Workspace:
		return "the workspace"
	case w == p.Cache:
		return "the private build cache of this workspace (GOCACHE, GOMODCACHE, npm_config_cache, ... point here)"
	case slices.Contains(p.Data, w):
		return "this extension's own data directory"
	case slices.Contains(devices(), w):
		return "a device every process may use"
	case slices.Contains(writable(Env{Temp: env.Temp, Getenv: env.Getenv}), w):
		return "a temporary directory"
	}
	return "a write path of the profile (sandbox.*.write) or --write"
}

func readWhy(r string, env Env) string {
	for _, a := range homeAllowed(nil, env) {
		if within(r, a.path) {
			return "on the allow-list of your home: " + a.why
		}
	}
	if home := homeDir(env); home != "" && within(r, home) {
		if r == filepath.Clean(env.Workspace) || within(env.Workspace, r) {
			return "the way to the workspace"
		}
		return "a read path of the profile (sandbox.*.read), --read or an extension's own directory"
	}
	if env.OllmHome != "" && within(r, env.OllmHome) {
		return "an extension's own directory"
	}
	return "outside your home everything but the secret locations and $OLLM_HOME is readable"
}

func denyWhy(d string, env Env) string {
	home := homeDir(env)
	switch {
	case env.OllmHome != "" && d == filepath.Clean(env.OllmHome):
		return "$OLLM_HOME: ollm's own settings, tokens, caches and sessions are never visible to sandboxed processes"
	case home != "" && d == home:
		return "in your home and not on the allow-list (sandbox.allowRead in your profile adds a path; see docs/security.md#the-sandbox)"
	}
	for _, x := range env.DenyRead {
		if absPath(x, env) == d {
			return "sandbox.denyRead in your profile"
		}
	}
	if home != "" && within(d, home) {
		return "a secret location (credentials, keys, tokens)"
	}
	if real, err := filepath.EvalSymlinks(d); err == nil && real != d {
		return "where a secret location leads"
	}
	if _, err := os.Lstat(d); err != nil {
		return "a denied path"
	}
	return "a denied path (where a secret location or $HOME leads)"
}

// Secret reports whether dir is, holds or lies in a path no sandboxed
// process may read other than $HOME as a whole (a secret location,
// sandbox.denyRead, $OLLM_HOME): a directory granted beside the workspace
// must not be one. A directory elsewhere in $HOME is not secret.
func Secret(env Env, dir string) bool {
	home := homeDir(env)
	realHome, _ := filepath.EvalSymlinks(home)
	dir = filepath.Clean(dir)
	for _, d := range denied(nil, env) {
		if d == home || d == realHome {
			continue
		}
		if within(dir, d) || within(d, dir) {
			return true
		}
	}
	return false
}
