package agent

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/llm/llmtest"
)

// /model: requests after SetModel go to the new model, with the history
// kept and the context window asked for the new model.
func TestSetModelSwitchesForTheRestOfTheSession(t *testing.T) {
	f := newFixture(t)
	f.cfg.ContextWindow = 0
	f.srv.AddModel(llmtest.Model{Name: "other-model"})
	f.srv.Load(llmtest.DefaultModel, 8192)
	f.srv.Load("other-model", 2048)
	s := f.session(t)
	ctx := context.Background()
	f.srv.Reply(llmtest.Text("first"))
	if _, err := s.Run(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if w := s.Context().Window; w != 8192 {
		t.Fatalf("window of %s = %d, want 8192", llmtest.DefaultModel, w)
	}
	s.SetModel(nil, "other-model", 0)
	if s.Model() != "other-model" {
		t.Fatalf("Model() = %q", s.Model())
	}
	f.srv.Reply(llmtest.Text("second"))
	if _, err := s.Run(ctx, "two"); err != nil {
		t.Fatal(err)
	}
	req := f.srv.LastRequest()
	if req.Model != "other-model" {
		t.Fatalf("request went to %q, want other-model", req.Model)
	}
	if got := contents(req); len(got) != 3 || got[0] != "one" || got[1] != "first" || got[2] != "two" {
		t.Fatalf("history after the switch = %q", got)
	}
	if w := s.Context().Window; w != 2048 {
		t.Fatalf("window after the switch = %d, want 2048 (other-model's)", w)
	}
	// A provider given with the model replaces the old one.
	other := llmtest.NewOllama(t)
	prov, err := llm.New(other.ModelConfig(), llm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetModel(prov, llmtest.DefaultModel, 1000)
	other.Reply(llmtest.Text("third"))
	if _, err := s.Run(ctx, "three"); err != nil {
		t.Fatal(err)
	}
	if n := len(other.Requests()); n != 1 {
		t.Fatalf("the new provider got %d requests, want 1", n)
	}
	if w := s.Context().Window; w != 1000 {
		t.Fatalf("window = %d, want the given 1000", w)
	}
}

// /clear: the conversation starts over, the system prompt stays, and a
// resumed session starts from the reset too.
func TestResetStartsTheConversationOver(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	tr, err := Create(dir, "s1", f.root, llmtest.DefaultModel, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Transcript, f.cfg.System = tr, "be brief"
	s := f.session(t)
	ctx := context.Background()
	f.srv.Reply(llmtest.Text("first"), llmtest.Tokens(500, 20))
	if _, err := s.Run(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if cu := s.Context(); cu.Used != 0 || cu.Window != 100000 {
		t.Fatalf("context after reset = %+v", cu)
	}
	if ev := f.rec.of(EvReset); len(ev) != 1 || ev[0].Context == nil {
		t.Fatalf("reset events = %+v", ev)
	}
	f.srv.Reply(llmtest.Text("second"))
	if _, err := s.Run(ctx, "two"); err != nil {
		t.Fatal(err)
	}
	req := f.srv.LastRequest()
	if len(req.Messages) != 2 || req.Messages[0].Content != "be brief" || req.Messages[1].Content != "two" {
		t.Fatalf("messages after reset = %+v", req.Messages)
	}
	msgs, err := Load(filepath.Join(dir, "s1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 3 || msgs[1].Content != "two" || msgs[2].Content != "second" {
		t.Fatalf("transcript after reset = %+v", msgs)
	}
}

func contents(req llmtest.ChatRequest) []string {
	var out []string
	for _, m := range req.Messages {
		out = append(out, m.Content)
	}
	return out
}
