package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/schema"
)

// Options.ExtraDirs are directories beyond the workspace that the face
// grants this session (an editor's additionalDirectories): the file tools
// use them as they use tools.extraDirs, and the shell's sandbox, under
// workspace-write, writes them with their trust files (.git/hooks,
// ollm.cue, ...) kept read-only as the workspace's are. Hooks and MCP
// servers do not get them.

// checkExtraDirs refuses a granted directory that is not an absolute,
// existing directory with its symlinks resolved, or that is, holds or lies
// in a path no sandboxed process may read (~/.ssh and the other secrets,
// sandbox.denyRead, $OLLM_HOME's sessions and tokens), or that holds or
// lies in $OLLM_HOME.
func (rt *Runtime) checkExtraDirs(g *schema.Resolved) error {
	if len(rt.opts.ExtraDirs) == 0 {
		return nil
	}
	env := rt.sandboxEnv(g)
	env.Workspace = ""
	for _, d := range rt.opts.ExtraDirs {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("additional directory %s: an absolute path is required", d)
		}
		fi, err := os.Lstat(d)
		if err != nil {
			return fmt.Errorf("additional directory %s: %w", d, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("additional directory %s is not a directory (a link or a file): name the directory itself", d)
		}
		if real, err := filepath.EvalSymlinks(d); err != nil || real != filepath.Clean(d) {
			return fmt.Errorf("additional directory %s goes through a symlink (to %s): name the real path", d, real)
		}
		if rt.Home.Dir != "" && (inside(rt.Home.Dir, d) || inside(d, rt.Home.Dir)) {
			return fmt.Errorf("additional directory %s holds or lies in ollm's home %s, which the model may not use", d, rt.Home.Dir)
		}
		if sandbox.Secret(env, d) {
			return fmt.Errorf("additional directory %s is, holds or lies in a secret path (~/.ssh, credentials, sandbox.denyRead): name a directory without one", d)
		}
	}
	return nil
}

// extraShell is the shell's sandbox with the granted directories writable
// under workspace-write, their trust files protected.
func (rt *Runtime) extraShell(s schema.Sandbox, env sandbox.Env, p sandbox.Policy) sandbox.Policy {
	if len(rt.opts.ExtraDirs) == 0 || p.Preset != schema.SandboxWorkspaceWrite {
		return p
	}
	s.Write = append(slices.Clone(s.Write), rt.opts.ExtraDirs...)
	p = sandbox.Resolve(s, sandbox.ShellDefault, env)
	for _, d := range rt.opts.ExtraDirs {
		// Each directory's protected names, as the sandbox lists the
		// workspace's.
		q := sandbox.Resolve(schema.Sandbox{Preset: schema.SandboxWorkspaceWrite}, schema.Sandbox{}, sandbox.Env{Workspace: d, Temp: []string{}})
		for _, pr := range q.Protect {
			if inside(d, pr) && pr != d {
				p.Protect = append(p.Protect, pr)
			}
		}
	}
	return p
}
