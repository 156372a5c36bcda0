package hooks

import (
	"fmt"
	"os/exec"
)

// A hook's shell (Claude Code's hook field, which knows bash and
// powershell; ollm also takes sh, zsh, fish and pwsh) runs its command
// through that shell. The shell is looked up on ollm's PATH when the hook
// runs, not when the profile loads: a profile may be shared between
// machines. One that is not installed is a start failure naming the hook
// and the shell, so a failClosed guard blocks.

// shellArgs is how each shell is told to run one command string.
var shellArgs = map[string][]string{
	"bash":       {"-c"},
	"sh":         {"-c"},
	"zsh":        {"-c"},
	"fish":       {"-c"},
	"pwsh":       {"-NoProfile", "-NonInteractive", "-Command"},
	"powershell": {"-NoProfile", "-NonInteractive", "-Command"},
}

// shellLine is the program and arguments that run h's command through its
// shell, or an error saying which shell is missing.
func shellLine(h *Hook) (string, []string, error) {
	flags, ok := shellArgs[h.Def.Shell]
	if !ok {
		return "", nil, fmt.Errorf("hook %s: shell %q is not one ollm knows (bash, sh, zsh, fish, pwsh, powershell)", h.QualifiedName(), h.Def.Shell)
	}
	names := []string{h.Def.Shell}
	if h.Def.Shell == "powershell" {
		names = []string{"pwsh", "powershell"} // PowerShell 7 is pwsh off Windows
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			args := append(append([]string{}, flags...), h.Def.Command)
			return p, append(args, h.Def.Args...), nil
		}
	}
	return "", nil, fmt.Errorf("hook %s: shell %s is not installed (not found on PATH); install it or remove \"shell\" from the hook to run the command with sh", h.QualifiedName(), h.Def.Shell)
}
