package runtime

import "github.com/ollm/ollm/core/sandbox"

// ShellLaunch is what the shell tool runs a command under: its sandbox,
// whether sandbox.required refuses to run without one, and the environment
// (ollm's by allow-list, sandbox.Environ, plus tools.shell.allowEnv). An
// editor's terminal (core/acp) runs the model's commands with exactly these.
func (rt *Runtime) ShellLaunch() (p sandbox.Policy, required bool, environ []string) {
	g := rt.Resolved()
	return *rt.shellPolicy(g), g.Profile.Sandbox.Required, sandbox.Environ(rt.opts.Environ(), g.Profile.Tools.Shell.AllowEnv)
}
