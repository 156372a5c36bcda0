//go:build !linux

package sandbox

import "github.com/ollm/ollm/schema"

// resolveCached resolves every time: the sandbox is Linux's.
func resolveCached(s, def schema.Sandbox, env Env) Policy {
	return resolve(nil, s, def, env)
}
