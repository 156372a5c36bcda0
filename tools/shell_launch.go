package tools

// ShellEnviron is the environment the shell tool runs a command with:
// environ without its secret-looking variables, except those allow names
// (tools.shell.allowEnv). An editor's terminal (ACP) gets exactly this.
func ShellEnviron(environ, allow []string) []string {
	kept, _ := sanitizeEnv(environ, allow)
	return kept
}
