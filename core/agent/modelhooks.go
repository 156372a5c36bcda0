package agent

import (
	"context"
	"maps"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/internal/secrets"
)

// modelRequest is one model request as before_tool_selection and
// before_model hooks shaped it.
type modelRequest struct {
	model   string
	msgs    []llm.Message
	defs    []tool.Definition
	options map[string]any // laid over the profile's model.options; nil removes one
	// toolChoice "required": a before_tool_selection hook asked that the
	// model call a tool (Gemini CLI's toolConfig mode ANY).
	toolChoice string
	// answer is a before_model hook's synthetic response (Gemini CLI's
	// BeforeModel llm_response): the model is not called.
	answer   string
	answered bool
}

// prepare builds the next request: the tools offered (before_tool_selection),
// then the messages, model and options (before_model), or a hook's answer.
func (s *Session) prepare(ctx context.Context) (modelRequest, *BlockedError) {
	req := modelRequest{model: s.turnModel(), defs: s.turnTools(s.toolDefs()), options: s.cfg.Options}
	if s.has(hooks.BeforeToolSelection) {
		names := make([]string, len(req.defs))
		for i, d := range req.defs {
			names[i] = d.Name
		}
		out, blocked := s.hook(ctx, hooks.BeforeToolSelection, func() map[string]any {
			return map[string]any{"available_tools": names, "model": req.model, "messages": wireMessages(s.Messages()),
				"options": s.effectiveOptions()}
		})
		if blocked != nil {
			return req, blocked
		}
		req.defs = filterTools(req.defs, out.Data["available_tools"])
		s.chooseTool(&req, out.Data["tool_choice"])
		s.addSystem(out, hooks.BeforeToolSelection)
	}
	req.msgs = s.Messages()
	if !s.has(hooks.BeforeModel) {
		return req, nil
	}
	msgs := req.msgs
	out, blocked := s.hook(ctx, hooks.BeforeModel, func() map[string]any {
		return map[string]any{"messages": wireMessages(msgs), "model": req.model, "options": s.effectiveOptions()}
	})
	if blocked != nil {
		return req, blocked
	}
	if s.addSystem(out, hooks.BeforeModel) {
		req.msgs = s.Messages()
	}
	if rw, ok := rewrittenMessages(out.Data["messages"]); ok {
		req.msgs = rw
	}
	if m, ok := out.Data["model"].(string); ok && m != "" {
		req.model = m
	}
	if o, ok := out.Data["options"].(map[string]any); ok {
		req.options = o
	}
	req.answer, req.answered = out.Data["synthetic_response"].(string)
	return req, nil
}

// chooseTool sets a required tool call when a hook asked for one and
// tools are offered. A provider that cannot force one (Ollama's
// /api/chat) sends the request without; the user is told once.
func (s *Session) chooseTool(req *modelRequest, choice any) {
	if choice != "required" || len(req.defs) == 0 {
		return
	}
	req.toolChoice = "required"
	s.mu.Lock()
	p := s.cfg.Provider
	s.mu.Unlock()
	if !llm.ForcesToolCalls(p) && !s.toldBefore(hooks.BeforeToolSelection, cannotForce) {
		s.publish(Event{Type: EvNotice, Hook: string(hooks.BeforeToolSelection), Text: cannotForce})
	}
}

const cannotForce = "a before_tool_selection hook asked that the model call a tool (toolConfig mode ANY); " +
	"Ollama's /api/chat cannot require one, so the model may answer in text (an OpenAI-compatible server can: tool_choice)"

// effectiveOptions are the options a request is sent with, as hooks see
// them: the profile's model.options with the session's laid over them,
// but for those whose name looks like a secret (an api_key an
// OpenAI-compatible server takes in the body): hooks never see those, and
// as a hook's options are laid over the profile's, they are still sent.
func (s *Session) effectiveOptions() map[string]any {
	s.mu.Lock()
	p := s.cfg.Provider
	s.mu.Unlock()
	opts := llm.ModelOptions(p)
	if opts == nil {
		opts = map[string]any{}
	}
	maps.Copy(opts, s.cfg.Options)
	maps.DeleteFunc(opts, func(k string, _ any) bool { return secrets.LooksSecret(k) })
	return opts
}

// answered records a before_model hook's synthetic response as the
// turn's answer, told as if the model had streamed it, and tells the user
// the model was not asked. It has no tool calls, and no after_model runs
// for it: Gemini CLI does not send a hook's answer through AfterModel.
func (s *Session) answered(n int, req modelRequest, rep *Reply) ([]llm.ToolCall, error) {
	s.publish(Event{Type: EvNotice, Hook: string(hooks.BeforeModel),
		Text: "a before_model hook answered in place of the model; the model was not called"})
	if req.answer != "" {
		s.publish(Event{Type: EvContent, Turn: n, Text: req.answer})
	}
	msg := llm.Message{Role: llm.RoleAssistant, Content: req.answer}
	if err := s.append(msg); err != nil {
		return nil, err
	}
	rep.Text, rep.Original = msg.Content, msg.Content
	s.publish(Event{Type: EvAssistant, Turn: n, Text: msg.Content, Message: &msg, Usage: &llm.Usage{}})
	return nil, nil
}

// afterModel emits after_model for a response and returns the message the
// conversation keeps (a Gemini AfterModel llm_response replaces its text;
// its tool calls stay and go through the gate as any) and the text shown
// (an ollm after_model rewrite of response changes only that).
func (s *Session) afterModel(ctx context.Context, req modelRequest, resp llm.Response) (llm.Message, string, hooks.Outcome, *BlockedError) {
	msg := resp.Message
	msg.Role = llm.RoleAssistant
	out, blocked := s.hook(ctx, hooks.AfterModel, func() map[string]any {
		opts := s.effectiveOptions()
		for k, v := range req.options {
			if v == nil {
				delete(opts, k)
			} else {
				opts[k] = v
			}
		}
		return map[string]any{"response": resp.Message.Content, "tokens": map[string]any{
			"prompt": resp.Usage.PromptTokens, "completion": resp.Usage.CompletionTokens,
			"total": resp.Usage.PromptTokens + resp.Usage.CompletionTokens,
		}, "done_reason": resp.DoneReason, "model": req.model, "messages": wireMessages(req.msgs), "options": opts}
	})
	if blocked != nil {
		return msg, "", out, blocked
	}
	if rw, ok := out.Data["rewritten_response"].(string); ok {
		msg.Content = rw
	}
	display := msg.Content
	if r, ok := out.Data["response"].(string); ok && r != resp.Message.Content {
		display = r
	}
	return msg, display, out, nil
}

// toldBefore reports whether notice n of an event that runs on every model
// request (a hook's answer ollm cannot apply, a hook skipped) was said
// already in this session, and remembers it.
func (s *Session) toldBefore(ev hooks.Event, n string) bool {
	switch ev {
	case hooks.BeforeToolSelection, hooks.BeforeModel, hooks.AfterModel:
	default:
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.told[n] {
		return true
	}
	if s.told == nil {
		s.told = map[string]bool{}
	}
	s.told[n] = true
	return false
}
