package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/tool"
)

// addCtx adds a line naming the call to every result it is asked about.
type addCtx struct {
	asked   []string
	forgets int
}

func (a *addCtx) Add(name string, _ tool.Invocation, res tool.Result) string {
	a.asked = append(a.asked, name+":"+res.ForModel)
	return "\n[context for " + name + "]"
}

func (a *addCtx) Forget() { a.forgets++ }

// TestToolContext: what Config.ToolContext adds reaches the model with the
// result of a call that ran and succeeded, never with a refusal or a
// failure; a reset and a compaction make it forget.
func TestToolContext(t *testing.T) {
	f := newFixture(t)
	ac := &addCtx{}
	f.cfg.ToolContext = ac
	f.cfg.Tools = tool.NewRegistry(
		&fnTool{name: "look", kind: tool.KindRead, fn: func(context.Context) tool.Result { return tool.OK("looked") }},
		&fnTool{name: "fail", kind: tool.KindRead, fn: func(context.Context) tool.Result { return tool.Fail(tool.ErrNotFound, "no such file") }},
	)
	f.srv.Reply(llmtest.ToolCall("look", nil), llmtest.ToolCall("fail", nil), llmtest.ToolCall("nope", nil))
	f.srv.Reply(llmtest.Text("ok"))
	s := f.session(t)
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, m := range f.srv.LastRequest().Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 3 || results[0] != "looked\n[context for look]" ||
		strings.Contains(results[1], "[context") || strings.Contains(results[2], "[context") {
		t.Fatalf("tool results %q", results)
	}
	if len(ac.asked) != 1 || ac.asked[0] != "look:looked" {
		t.Errorf("asked %q", ac.asked)
	}
	if err := s.Reset(); err != nil || ac.forgets != 1 {
		t.Errorf("reset: %v, forgets %d", err, ac.forgets)
	}
}
