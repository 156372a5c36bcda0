package tools

import "github.com/ollm/ollm/core/sandbox"

// ShellEnviron is the environment the shell tool runs a command with:
// environ without its secret-looking variables, except those allow names
// (tools.shell.allowEnv). An editor's terminal (ACP) gets exactly this.
func ShellEnviron(environ, allow []string) []string {
	kept, _ := sanitizeEnv(environ, allow)
	return kept
}

// ExplainDenial is the shell tool's one-line account of a refusal by the
// sandbox ("blocked by the sandbox: ..."), read from what the command
// printed; "" when the output shows none. An editor's terminal (ACP)
// explains its commands' refusals with it as the shell tool does.
func ExplainDenial(output string, p *sandbox.Policy, root string) string {
	return explainDenial(output, p, root)
}
