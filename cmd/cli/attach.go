package cli

import (
	"context"
	"fmt"

	"github.com/ollm/ollm/core/runtime"
)

// attachResources attaches the MCP resources prompt mentions as
// @server:uri (`ollm run`) and says on stderr what was attached and what
// was not, and why.
func attachResources(ctx context.Context, io *IOStreams, rt *runtime.Runtime, prompt string) string {
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

// sessionAttach attaches the MCP resources a TUI prompt mentions; the
// notes become notices.
func sessionAttach(rt *runtime.Runtime) func(context.Context, string) (string, []string) {
	return func(ctx context.Context, prompt string) (string, []string) {
		prompt, notes := rt.AttachResources(ctx, prompt)
		out := make([]string, len(notes))
		for i, n := range notes {
			out[i] = n.String()
		}
		return prompt, out
	}
}
