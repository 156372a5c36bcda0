package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/schema"
)

// A prompt goes through AgentOptions.Attach before the turn (issue 16:
// @server:uri resources): the model gets the expanded prompt and the
// notes show as notices before the turn ends.
func TestSubmitAttaches(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Text("read it"))
	p, err := llm.NewOllama(srv.ModelConfig(), llm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewAgentRuntime(context.Background(), AgentOptions{
		Attach: func(_ context.Context, prompt string) (string, []string) {
			return prompt + "\n\nCONTENTS OF THE RESOURCE", []string{"attached @ev:demo://x (23 bytes)"}
		},
	})
	defer r.Close()
	pol, err := policy.Compile(schema.Policy{DefaultAction: "allow"}, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := agent.New(agent.Config{Provider: p, Model: llmtest.DefaultModel, Policy: pol, OnEvent: r.OnEvent})
	if err != nil {
		t.Fatal(err)
	}
	r.Attach(s)
	if err := r.Submit("summarise @ev:demo://x"); err != nil {
		t.Fatal(err)
	}
	var notices []string
	deadline := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case ev := <-r.Events():
			switch e := ev.(type) {
			case Notice:
				notices = append(notices, e.Text)
			case TurnDone:
				if e.Err != "" {
					t.Fatal(e.Err)
				}
				done = true
			}
		case <-deadline:
			t.Fatal("no TurnDone")
		}
	}
	if len(notices) != 1 || notices[0] != "attached @ev:demo://x (23 bytes)" {
		t.Errorf("notices %q", notices)
	}
	msgs := srv.LastRequest().Messages
	if last := msgs[len(msgs)-1].Content; !strings.HasPrefix(last, "summarise @ev:demo://x") || !strings.HasSuffix(last, "CONTENTS OF THE RESOURCE") {
		t.Errorf("the model got %q", last)
	}
}
