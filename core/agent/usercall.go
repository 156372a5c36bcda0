package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
)

var userCalls atomic.Uint64

// CallTool runs one call that the user's command (not the model) asks
// for through the one gate, like Call, under an id of its own.
func (s *Session) CallTool(ctx context.Context, name string, args json.RawMessage) (res tool.Result, refused bool) {
	return s.Call(ctx, fmt.Sprintf("command-%d", userCalls.Add(1)), name, args)
}

// sessionInjector expands a Gemini CLI command's !{...} through the
// shell tool and the gate, and its @{...} from inside the workspace.
type sessionInjector struct{ s *Session }

func (in sessionInjector) Shell(ctx context.Context, command string) (string, error) {
	args, _ := json.Marshal(map[string]string{"command": command})
	res, refused := in.s.CallTool(ctx, "shell", args)
	text := res.ForModel
	if text == "" && res.Error != nil {
		text = res.Error.Message
	}
	if refused {
		text = strings.TrimPrefix(text, "Error (policy): ")
		return "", &refusedError{text: text, block: &BlockedError{Block: Block{Event: "command", Reason: text}}}
	}
	// The shell tool's header is for the model's tool calls; a command's
	// prompt gets the output alone when the command succeeded (a failure,
	// or a result an after_tool hook rewrote, is kept whole).
	if out, ok := strings.CutPrefix(text, "Exit code: 0\nOutput:\n"); ok && res.Error == nil {
		return strings.TrimRight(out, "\n"), nil
	}
	return text, nil
}

func (in sessionInjector) File(path string) (string, error) {
	return skills.ReadInWorkspace(in.s.cfg.Cwd, path)
}

// refusedError is a command's !{...} that a hook, the policy or the user
// refused; it unwraps to a BlockedError, so `ollm run` exits 4 as for
// any block.
type refusedError struct {
	text  string
	block *BlockedError
}

func (e *refusedError) Error() string { return "refused: " + e.text }
func (e *refusedError) Unwrap() error { return e.block }
