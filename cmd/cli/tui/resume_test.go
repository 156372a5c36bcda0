package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/llm"
)

// --resume shows the history the model has (issue 18): the earlier
// prompts and answers, and a line saying how much came before, instead of
// an empty screen.
func TestResumeShowsTheHistory(t *testing.T) {
	r := NewAgentRuntime(context.Background(), AgentOptions{})
	defer r.Close()
	r.Replay([]llm.Message{
		{Role: llm.RoleUser, Content: "read notes.txt"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "read_file"}}},
		{Role: llm.RoleTool, Content: "one\ntwo\n", ToolName: "read_file"},
		{Role: llm.RoleAssistant, Content: "It says **one** and two."},
	})
	m, _ := newModel(t)
	deadline := time.After(5 * time.Second)
	for n := 0; n < 3; n++ {
		select {
		case ev := <-r.Events():
			send(m, ev)
		case <-deadline:
			t.Fatalf("got %d of 3 events", n)
		}
	}
	v := plain(m)
	for _, want := range []string{"read notes.txt", "It says", "and two.", "resumed: 4 earlier messages (1 tool results not shown)"} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
}
