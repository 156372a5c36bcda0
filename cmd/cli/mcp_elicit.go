package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/runtime"
)

// mcpCallElicitor answers a server's requests for input during `ollm mcp
// call`: at a terminal the user types the answer (a JSON object, or the
// value of the one field asked for; an empty line declines); without one
// --elicit decides (decline, or a form's defaults), with a notice on
// stderr saying which.
func mcpCallElicitor(o *MCPOptions) mcp.Elicitor {
	notice := func(s string) { fmt.Fprintf(o.IO.ErrOut, "notice: %s\n", s) }
	if !o.IO.CanPrompt() {
		return mcp.HeadlessElicitor(o.Elicit, notice)
	}
	var mu sync.Mutex // one question at a time
	in := bufio.NewReader(o.IO.In)
	return func(ctx context.Context, e mcp.Elicitation) (mcp.ElicitationReply, error) {
		mu.Lock()
		defer mu.Unlock()
		w := o.IO.ErrOut
		fmt.Fprintf(w, "MCP server %q asks: %s\n", e.Server, strings.TrimSpace(e.Message))
		if e.Mode == "url" {
			fmt.Fprintf(w, "  open: %s\n", e.URL)
			fmt.Fprint(w, "Done? [y]es, [N]o: ")
		} else {
			if len(e.Schema) > 0 {
				fmt.Fprintf(w, "  fields: %s\n", e.Schema)
			}
			fmt.Fprint(w, "Answer (JSON object, or the value of a single field; empty declines): ")
		}
		o.IO.DropTypeAhead(in)
		line, err := o.IO.ReadAnswer(ctx, in)
		line = strings.TrimSpace(line)
		if err != nil && line == "" {
			return mcp.ElicitationReply{Action: mcp.ElicitDecline}, nil
		}
		if e.Mode == "url" {
			if a := strings.ToLower(line); a == "y" || a == "yes" {
				return mcp.ElicitationReply{Action: mcp.ElicitAccept}, nil
			}
			return mcp.ElicitationReply{Action: mcp.ElicitDecline}, nil
		}
		if line == "" {
			return mcp.ElicitationReply{Action: mcp.ElicitDecline}, nil
		}
		content, err := runtime.ElicitContent(e.Schema, line)
		if err != nil {
			return mcp.ElicitationReply{}, fmt.Errorf("answer to MCP server %q: %w", e.Server, err)
		}
		return mcp.ElicitationReply{Action: mcp.ElicitAccept, Content: content}, nil
	}
}
