package agent

import (
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
)

// goOn makes the model go on after an after_agent hook asked for it (data
// retry: a Claude Code Stop hook's decision "block", a Gemini CLI
// AfterAgent "deny"): the hook's reason is the next user message. The
// next after_agent sees stop_hook_active, as in Claude Code and Gemini
// CLI, so a hook can let the model stop the second time; agent.maxTurns
// bounds the whole prompt whatever the hooks say.
func (s *Session) goOn(reason string) error {
	s.publish(Event{Type: EvNotice, Hook: "after_agent", Text: "a hook asked the model to go on: " + reason})
	msg := llm.Message{Role: llm.RoleUser, Content: reason}
	if err := s.append(msg); err != nil {
		return err
	}
	s.publish(Event{Type: EvPrompt, Text: reason})
	return nil
}

// maybeClear drops the conversation when an after_agent hook asked for it
// (data clear_context; Gemini CLI's AfterAgent
// hookSpecificOutput.clearContext) and the hooks also stopped the run or
// made the model go on: Gemini CLI clears only then, keeping the
// system prompt. A retry then starts from the system prompt and the
// hook's reason. The user is told; the transcript records it as /clear.
func (s *Session) maybeClear(out hooks.Outcome, stopOrRetry bool) error {
	if out.Data["clear_context"] != true || !stopOrRetry {
		return nil
	}
	if err := s.Reset(); err != nil {
		return err
	}
	s.publish(Event{Type: EvNotice, Hook: string(hooks.AfterAgent),
		Text: "a hook cleared the conversation context (clearContext): the next request starts from the system prompt"})
	return nil
}
