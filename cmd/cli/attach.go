package cli

import (
	"context"
	"fmt"

	"github.com/ollm/ollm/core/runtime"
)

// attachResources attaches the workspace files prompt mentions as @path
// and the MCP resources it mentions as @server:uri (`ollm run`) and says on stderr what was attached and what
// was not, and why.
func attachResources(ctx context.Context, io *IOStreams, rt *runtime.Runtime, prompt string) string {
	prompt, files := rt.AttachFiles(prompt)
	for _, n := range files {
		kind := "notice"
		if n.Err != nil {
			kind = "warning"
		}
		fmt.Fprintf(io.ErrOut, "%s: %s\n", kind, n)
	}
	prompt, notes := rt.AttachResources(ctx, prompt)
	for _, n := range notes {
		kind := "notice"
		if n.Err != nil {
			kind = "warning"
		}
		fmt.Fprintf(io.ErrOut, "%s: %s\n", kind, n)
	}
	return prompt
}

// sessionAttach attaches the workspace files (@path) and MCP resources
// (@server:uri) a TUI prompt mentions; the notes become notices.
func sessionAttach(rt *runtime.Runtime) func(context.Context, string) (string, []string) {
	return func(ctx context.Context, prompt string) (string, []string) {
		var out []string
		prompt, files := rt.AttachFiles(prompt)
		for _, n := range files {
			out = append(out, n.String())
		}
		prompt, notes := rt.AttachResources(ctx, prompt)
		for _, n := range notes {
			out = append(out, n.String())
		}
		return prompt, out
	}
}
