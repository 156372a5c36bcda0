package runtime

import (
	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/tools"
)

// ShellLaunch is what the shell tool runs a command under: its sandbox,
// whether sandbox.required refuses to run without one, and the sanitised
// environment. An editor's terminal (core/acp) runs the model's commands
// with exactly these.
func (rt *Runtime) ShellLaunch() (p sandbox.Policy, required bool, environ []string) {
	g := rt.Resolved()
	return *rt.shellPolicy(g), g.Profile.Sandbox.Required, tools.ShellEnviron(rt.opts.Environ(), g.Profile.Tools.Shell.AllowEnv)
}
