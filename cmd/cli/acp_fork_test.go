package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// requestTexts are the user and assistant messages of the model's last
// request, in order.
func requestTexts(e *sessionEnv) string {
	var out []string
	for _, m := range e.srv.LastRequest().Messages {
		if m.Role == "user" || m.Role == "assistant" {
			out = append(out, m.Role+":"+m.Content)
		}
	}
	return strings.Join(out, " | ")
}

// session/fork: the fork is a new saved session that goes on from a copy
// of the conversation, with the open session's model and mode; the
// original's transcript is not touched and its conversation does not see
// the fork's; both are listed; a new connection loads the fork; an
// unknown or malformed id is refused.
func TestACPForkSession(t *testing.T) {
	e := newSessionEnv(t)
	e.srv.AddModel(llmtest.Model{Name: "qwen3:8b"})
	ctx := context.Background()
	c := newACPClient()
	conn := startACP(t, e, c, false)
	if conn.init.AgentCapabilities.SessionCapabilities.Fork == nil {
		t.Fatalf("fork not advertised: %+v", conn.init.AgentCapabilities.SessionCapabilities)
	}
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Reply(llmtest.Text("First answer."))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("first question")}); err != nil {
		t.Fatal(err)
	}
	if _, err := setConfig(conn, ns.SessionId, "model", "qwen3:8b"); err != nil {
		t.Fatal(err)
	}
	if _, err := setConfig(conn, ns.SessionId, "mode", "plan"); err != nil {
		t.Fatal(err)
	}
	orig := filepath.Join(e.home, "sessions", string(ns.SessionId)+".jsonl")
	before, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}

	fk, err := conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: ns.SessionId, Cwd: e.ws})
	if err != nil {
		t.Fatal(err)
	}
	if fk.SessionId == "" || fk.SessionId == ns.SessionId || fk.Modes == nil || fk.Modes.CurrentModeId != "plan" {
		t.Fatalf("fork: %+v", fk)
	}
	var model string
	for _, o := range fk.ConfigOptions {
		if o.Select != nil && o.Select.Id == "model" {
			model = string(o.Select.CurrentValue)
		}
	}
	if model != "qwen3:8b" {
		t.Errorf("the fork's model option: %q", model)
	}
	e.srv.Reply(llmtest.Text("Fork answer."))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: fk.SessionId, Prompt: text("in the fork")}); err != nil {
		t.Fatal(err)
	}
	if got, want := requestTexts(e), "user:first question | assistant:First answer. | user:in the fork"; got != want {
		t.Errorf("the fork's request: %q, want %q", got, want)
	}
	if m := e.srv.LastRequest().Model; m != "qwen3:8b" {
		t.Errorf("the fork's prompt went to %q", m)
	}
	if after, _ := os.ReadFile(orig); string(after) != string(before) {
		t.Errorf("forking changed the original transcript:\n%s\n---\n%s", before, after)
	}
	e.srv.Reply(llmtest.Text("Original answer."))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("in the original")}); err != nil {
		t.Fatal(err)
	}
	if got, want := requestTexts(e), "user:first question | assistant:First answer. | user:in the original"; got != want {
		t.Errorf("the original's request: %q, want %q", got, want)
	}

	ws := e.ws
	list, err := conn.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: &ws})
	if err != nil {
		t.Fatal(err)
	}
	titles := map[sdk.SessionId]string{}
	for _, s := range list.Sessions {
		if s.Title != nil {
			titles[s.SessionId] = *s.Title
		}
	}
	if len(list.Sessions) != 2 || titles[ns.SessionId] != "first question" || titles[fk.SessionId] != "first question" {
		t.Errorf("session/list: %+v", titles)
	}

	for id, want := range map[sdk.SessionId]string{"20260101-000000-00000000": "cannot fork it", "../sessions/x": "is not one"} {
		if _, err := conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: id, Cwd: e.ws}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("fork of %s: %v", id, err)
		}
	}

	if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: fk.SessionId}); err != nil {
		t.Fatal(err)
	}
	c2 := newACPClient()
	conn2 := startACP(t, e, c2, false)
	if _, err := conn2.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: fk.SessionId, Cwd: e.ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	var replayed []string
	for _, u := range c2.take() {
		if m := u.Update.UserMessageChunk; m != nil && m.Content.Text != nil {
			replayed = append(replayed, m.Content.Text.Text)
		}
	}
	if strings.Join(replayed, " | ") != "first question | in the fork" {
		t.Errorf("the fork loaded: %q", replayed)
	}
}
