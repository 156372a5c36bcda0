package cli

import (
	"context"
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// session/list shows the saved sessions of the editor's workspace with
// their first prompt as the title; session/resume in a new connection
// goes on with the conversation without replaying it.
func TestACPListAndResumeSessions(t *testing.T) {
	e := newSessionEnv(t)
	c := newACPClient()
	conn := startACP(t, e, c, false)
	caps := conn.init.AgentCapabilities.SessionCapabilities
	if caps.List == nil || caps.Resume == nil || caps.Close == nil {
		t.Fatalf("session capabilities: %+v", caps)
	}
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Reply(llmtest.Text("Hello."))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("say hello\nplease")}); err != nil {
		t.Fatal(err)
	}
	ws := e.ws
	list, err := conn.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: &ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != ns.SessionId || list.Sessions[0].Cwd != e.ws ||
		list.Sessions[0].Title == nil || *list.Sessions[0].Title != "say hello" || list.Sessions[0].UpdatedAt == nil {
		t.Fatalf("session/list: %+v", list.Sessions)
	}
	other := filepath.Join(filepath.Dir(e.ws), "elsewhere")
	if list, err := conn.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: &other}); err != nil || len(list.Sessions) != 0 {
		t.Fatalf("session/list of another directory: %+v %v", list.Sessions, err)
	}
	if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: ns.SessionId}); err != nil {
		t.Fatal(err)
	}

	c2 := newACPClient()
	conn2 := startACP(t, e, c2, false)
	rs, err := conn2.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: ns.SessionId, Cwd: e.ws})
	if err != nil {
		t.Fatal(err)
	}
	if rs.Modes == nil || rs.Modes.CurrentModeId != "default" {
		t.Fatalf("resume modes: %+v", rs.Modes)
	}
	e.srv.Reply(llmtest.Text("Again."))
	if _, err := conn2.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("once more")}); err != nil {
		t.Fatal(err)
	}
	for _, u := range c2.take() {
		if u.Update.UserMessageChunk != nil {
			t.Errorf("session/resume replayed the conversation: %+v", u.Update.UserMessageChunk)
		}
	}
	last := e.srv.LastRequest()
	if n := len(last.Messages); n < 3 || last.Messages[n-1].Content != "once more" || last.Messages[1].Content != "say hello\nplease" {
		t.Errorf("the resumed session's request: %+v", last.Messages)
	}
	if _, err := conn2.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: "no-such-session", Cwd: e.ws}); err == nil {
		t.Error("resuming an unknown session succeeded")
	}
}
