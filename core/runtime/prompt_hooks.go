package runtime

import (
	"context"
	"fmt"
	"strings"

	"github.com/ollm/ollm/core/llm"
)

// askModel is what prompt hooks are evaluated with (hooks.Options.AskModel):
// one request of its own to the session's model, outside the conversation,
// with no tools; it returns the reply's text.
func (rt *Runtime) askModel(ctx context.Context, system, user string) (string, error) {
	m, p := rt.Model()
	if p == nil {
		return "", fmt.Errorf("no model is configured")
	}
	resp, err := p.Chat(ctx, llm.Request{Model: m.Name, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: system},
		{Role: llm.RoleUser, Content: user},
	}}, nil)
	if err != nil {
		return "", fmt.Errorf("model %s: %w", m.Name, err)
	}
	return strings.TrimSpace(resp.Message.Content), nil
}
