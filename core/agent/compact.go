package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/skills"
)

// CompactPrompt asks the model for the summary that replaces the earlier
// conversation.
const CompactPrompt = "Summarise the conversation so far for your own later use: the user's goals, " +
	"decisions made, files read or changed and what is left to do. Be brief and concrete."

// maybeCompact compacts the conversation when the tracked use has reached
// CompactAt of the window: on_context_overflow first (a block keeps the
// conversation as it is), then Config.Compact or a model summary.
func (s *Session) maybeCompact(ctx context.Context) error {
	s.mu.Lock()
	used, window := s.used, s.window
	s.mu.Unlock()
	if window <= 0 || float64(used) < s.cfg.CompactAt*float64(window) {
		return nil
	}
	out, blocked := s.hook(ctx, hooks.OnContextOverflow, func() map[string]any {
		return map[string]any{"context": map[string]any{"used": used, "window": window, "messages": len(s.Messages()),
			"size": used, "maxSize": window, "utilization": float64(used) / float64(window)}}
	})
	if blocked != nil {
		return nil // the hook said no; the request goes as it is
	}
	s.addSystem(out, hooks.OnContextOverflow)
	return s.Compact(ctx)
}

// Compact replaces everything before the latest user prompt by a summary
// (the /compact command). Leading system messages are kept.
func (s *Session) Compact(ctx context.Context) error {
	msgs := s.Messages()
	compact := s.cfg.Compact
	if compact == nil {
		compact = s.summarise
	}
	next, err := compact(ctx, msgs)
	if err != nil {
		s.failed(ctx, "compact", err)
		return err
	}
	if len(next) >= len(msgs) {
		return nil
	}
	used := estimate(next)
	s.mu.Lock()
	s.msgs, s.used = next, used
	cu := ContextUse{Used: used, Window: s.window}
	s.mu.Unlock()
	s.forgetToolContext()
	if s.cfg.Transcript != nil {
		if err := s.cfg.Transcript.Replace(next); err != nil {
			return err
		}
	}
	s.publish(Event{Type: EvCompacted, Context: &cu, Text: fmt.Sprintf("compacted %d messages into %d", len(msgs), len(next))})
	return nil
}

// summarise asks the model to summarise everything before the latest user
// prompt and keeps the prompt and what followed it.
func (s *Session) summarise(ctx context.Context, msgs []llm.Message) ([]llm.Message, error) {
	head := 0
	for head < len(msgs) && msgs[head].Role == llm.RoleSystem {
		head++
	}
	last := -1
	for i := len(msgs) - 1; i >= head; i-- {
		if msgs[i].Role == llm.RoleUser {
			last = i
			break
		}
	}
	if last <= head {
		return msgs, nil // nothing before the latest prompt
	}
	req := append(append([]llm.Message(nil), msgs[:last]...), llm.Message{Role: llm.RoleUser, Content: CompactPrompt})
	resp, err := s.cfg.Provider.Chat(ctx, llm.Request{Model: s.cfg.Model, Messages: req, Options: s.cfg.Options}, nil)
	if err != nil {
		return nil, err
	}
	out := append([]llm.Message(nil), msgs[:head]...)
	out = append(out, llm.Message{Role: llm.RoleSystem, Content: "Summary of the earlier conversation:\n" + strings.TrimSpace(resp.Message.Content)})
	return append(out, msgs[last:]...), nil
}

// estimate guesses the tokens of msgs at four characters a token, until the
// next reply reports the real count.
func estimate(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + len(m.Thinking)
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments)
		}
	}
	return n / 4
}

// RunSkill renders the skill called name with values and runs it as the
// prompt (the TUI's /<skill>). A Gemini CLI command's !{...} runs through
// the gate first, its @{...} reads from the workspace.
func (s *Session) RunSkill(ctx context.Context, reg *skills.Registry, name string, values map[string]string) (Reply, error) {
	if sk, err := reg.Get(name); err == nil {
		s.limitTurn(sk) // allowed-tools and model: also for the command's own shell lines
		defer s.endTurn()
	}
	prompt, err := reg.Expand(ctx, name, values, sessionInjector{s})
	if err != nil {
		return Reply{}, err
	}
	return s.Run(ctx, prompt)
}
