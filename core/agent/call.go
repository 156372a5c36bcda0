package agent

import (
	"context"
	"encoding/json"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/tool"
)

// Call runs one tool call through the one gate without a model (`ollm mcp
// serve`, a command's !{...} through CallTool): before_tool, the policy on the final arguments, a confirmation
// over the bus, execution, after_tool and on_file_change. It returns the
// result the model would read; refused says the gate refused the call (the
// result's error says why).
func (s *Session) Call(ctx context.Context, id, name string, args json.RawMessage) (res tool.Result, refused bool) {
	p := s.gate(ctx, 0, llm.ToolCall{ID: id, Name: name, Arguments: args})
	if !p.refused {
		s.execute(ctx, 0, p)
		s.afterTool(ctx, 0, p)
	}
	return p.res, p.refused
}
