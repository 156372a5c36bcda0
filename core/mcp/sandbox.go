package mcp

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/schema"
)

// DeclaredSandbox is what a server declares: its own sandbox, else its
// extension's permissions; nil when neither says anything.
func (s Spec) DeclaredSandbox() *schema.Sandbox {
	if d := s.Config.Sandbox.Declared(); d != nil {
		return d
	}
	return s.Permissions.Declared()
}

// SandboxPolicy is the usual Options.Sandbox: a stdio server runs under
// its declared sandbox, else the profile's sandbox.mcp (profile), with
// what either leaves unset taken from sandbox.ProcessDefault
// (workspace-write with network), resolved in env (the workspace, homes
// and denyRead of this run).
func SandboxPolicy(profile schema.Sandbox, env sandbox.Env) func(Spec) (sandbox.Policy, error) {
	return func(s Spec) (sandbox.Policy, error) {
		decl := profile
		if d := s.DeclaredSandbox(); d != nil {
			decl = *d
		}
		p := sandbox.Resolve(decl, sandbox.ProcessDefault, env)
		if s.Scope == schema.ScopeBuiltin || s.Scope == schema.ScopeUser || s.Scope == schema.ScopeDirectory {
			p.AllowOwnFiles(env, append([]string{s.Config.Command}, s.Config.Args...))
		}
		if s.Extension != "" {
			// its own .ollm/data/<name>, the one place under .ollm/ it writes
			if err := p.AllowData(env.Workspace, sandbox.ExtensionData(env.Workspace, s.Extension)); err != nil {
				return p, err
			}
		}
		return p, nil
	}
}

// confine wraps a stdio server's process in its sandbox (Options.Sandbox).
// When the machine cannot sandbox, the server runs unsandboxed with a
// warning in its status and log, unless SandboxRequired: then it fails to
// start and says why.
func (c *conn) confine(cmd *exec.Cmd) error {
	if c.opts.Sandbox == nil {
		return nil
	}
	p, err := c.opts.Sandbox(c.spec)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if c.spec.Extension != "" && c.spec.Dir != "" && !p.Off() {
		p.Read = append(slices.Clone(p.Read), c.spec.Dir) // its own files, even under a denied path
	}
	err = c.opts.wrap(cmd, p)
	switch {
	case err == nil:
		c.sandbox = p.String()
		return nil
	case !errors.Is(err, sandbox.ErrUnavailable):
		return fmt.Errorf("sandbox: %w", err)
	case c.opts.SandboxRequired:
		return fmt.Errorf("%w; sandbox.required is set, so the server does not run unsandboxed", err)
	}
	c.sandbox = "no sandbox"
	w := fmt.Sprintf("running without a sandbox: %v (set sandbox.required: true to refuse instead)", err)
	c.log.Warn(w)
	c.cfg.Warnings = append(c.cfg.Warnings, w)
	return nil
}
