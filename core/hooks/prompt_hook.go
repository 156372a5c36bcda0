package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// A prompt hook (Claude Code's type "prompt"; schema.Hook.Prompt) starts
// no process: its prompt, with $ARGUMENTS replaced by the hook input (or
// the input appended when the prompt does not say $ARGUMENTS), is sent to
// the session's model as one request of its own, and the reply
// {"ok": true} lets the operation go on while {"ok": false, "reason":
// "..."} answers like a command hook's exit status 2 with the reason on
// stderr: a tool call or prompt is blocked, a Stop continues the turn
// with the reason. The hook's timeout bounds the request. A model error,
// a timeout or a reply that is not such an object is a failure like a
// command hook's, so failClosed decides whether it blocks.

// promptHookSystem is the system prompt of a prompt hook's request.
const promptHookSystem = `You evaluate a condition for a hook of a coding agent. The user message gives the condition and the hook's input as JSON (the event and, for a tool call, the tool and its arguments). Decide whether the condition is met. Reply with one JSON object and nothing else: {"ok": true, "reason": ""} when the operation may go on, {"ok": false, "reason": "why it may not"} when it may not.`

// PromptHookSystem is the system prompt prompt hooks are asked with; a
// stand-in model can tell their requests by it.
const PromptHookSystem = promptHookSystem

// runPrompt asks the session's model h's prompt about input.
func (e *Engine) runPrompt(ctx context.Context, h *Hook, input []byte) RunOutput {
	if e.opts.AskModel == nil {
		return RunOutput{ExitCode: -1, StartErr: fmt.Errorf("prompt hook %s: no model to ask here (prompt hooks run in sessions: ollm run, chat, acp)", h.QualifiedName())}
	}
	text := h.Def.Prompt
	if strings.Contains(text, "$ARGUMENTS") {
		text = strings.ReplaceAll(text, "$ARGUMENTS", string(input))
	} else {
		text += "\n\n" + string(input)
	}
	rctx, cancel := context.WithTimeout(ctx, h.timeout(e.opts.Timeout))
	defer cancel()
	reply, err := e.opts.AskModel(rctx, promptHookSystem, text)
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded):
		return RunOutput{ExitCode: -1, TimedOut: true}
	case err != nil:
		return RunOutput{ExitCode: -1, Err: fmt.Errorf("prompt hook %s: the model failed: %w", h.QualifiedName(), err)}
	}
	ok, reason, err := parsePromptReply(reply)
	if err != nil {
		return RunOutput{ExitCode: -1, Err: fmt.Errorf("prompt hook %s: %w", h.QualifiedName(), err)}
	}
	if ok {
		return RunOutput{ExitCode: 0}
	}
	if strings.TrimSpace(reason) == "" {
		reason = "blocked by prompt hook " + h.QualifiedName()
	}
	return RunOutput{ExitCode: 2, Stderr: []byte(reason)}
}

// parsePromptReply reads {"ok": bool, "reason": "..."} from the model's
// reply, which may wrap it in a code fence or words around it.
func parsePromptReply(reply string) (bool, string, error) {
	s := strings.TrimSpace(reply)
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	var v struct {
		OK     *bool  `json:"ok"`
		Reason string `json:"reason"`
	}
	if i < 0 || j < i {
		return false, "", fmt.Errorf("the model's reply is not a JSON object {\"ok\": true|false, \"reason\": \"...\"}: %.200q", s)
	}
	if err := json.Unmarshal([]byte(s[i:j+1]), &v); err != nil || v.OK == nil {
		return false, "", fmt.Errorf("the model's reply is not {\"ok\": true|false, \"reason\": \"...\"}: %.200q", s)
	}
	return *v.OK, v.Reason, nil
}
