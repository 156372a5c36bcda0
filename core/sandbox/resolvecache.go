package sandbox

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ollm/ollm/schema"
)

// resolveKey names one resolution: the declarations and every part of
// env it reads (the environment variables included), not the
// filesystem, which the cache watches instead.
func resolveKey(s, def schema.Sandbox, env Env) string {
	var b strings.Builder
	for _, x := range []any{s, def} {
		j, _ := json.Marshal(x)
		b.Write(j)
		b.WriteByte(0)
	}
	for _, x := range []string{env.Workspace, env.OllmHome, env.Home, env.Cache} {
		b.WriteString(x)
		b.WriteByte(0)
	}
	for _, xs := range [][]string{env.DenyRead, env.Read, env.AllowRead} {
		b.WriteString(strings.Join(xs, "\x01"))
		b.WriteByte(0)
	}
	if env.Temp == nil {
		b.WriteString("\x02")
	} else {
		b.WriteString(strings.Join(env.Temp, "\x01"))
	}
	b.WriteByte(0)
	if env.Getenv != nil {
		for _, k := range resolveEnvNames {
			b.WriteString(env.Getenv(k))
			b.WriteByte(0)
		}
	}
	return b.String()
}

// resolveEnvNames are the variables a resolution reads through
// Env.Getenv (writable, PrivateCache, cacheEnv, userModCache).
var resolveEnvNames = []string{"TMPDIR", "XDG_CACHE_HOME", "MAVEN_OPTS", "GOMODCACHE", "GOPATH"}

// clonePolicy copies p's slices: a cached policy is handed out many times
// and callers append to what they get.
func clonePolicy(p Policy) Policy {
	for _, s := range []*[]string{&p.Read, &p.Write, &p.Protect, &p.Data, &p.Hide, &p.Pin, &p.CacheEnv} {
		*s = slices.Clone(*s)
	}
	return p
}
