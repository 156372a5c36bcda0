package cli

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	// An id that climbs out of the sessions directory is refused before
	// anything is read or appended.
	evil := filepath.Join(e.home, "evil.jsonl")
	e.write(evil, `{"type":"session","id":"x"}`+"\n")
	for _, load := range []bool{false, true} {
		var err error
		if load {
			_, err = conn2.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "../evil", Cwd: e.ws, McpServers: []sdk.McpServer{}})
		} else {
			_, err = conn2.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: "../evil", Cwd: e.ws})
		}
		if err == nil || !strings.Contains(err.Error(), "session id ../evil is not one") {
			t.Errorf("session id ../evil (load %v): %v", load, err)
		}
	}
	if b, _ := os.ReadFile(evil); string(b) != `{"type":"session","id":"x"}`+"\n" {
		t.Errorf("a file outside the sessions directory was written: %q", b)
	}
}

// The MCP servers the editor passes in session/new join the session once
// the user approves them in the editor: asked the first time, "always
// allow" remembered for that configuration (a new connection is not
// asked), a changed configuration asked again, a refused one not started.
func TestACPEditorMCPServers(t *testing.T) {
	e := newSessionEnv(t)
	script := everythingScript(t)
	server := func(env ...sdk.EnvVariable) []sdk.McpServer {
		return []sdk.McpServer{{Stdio: &sdk.McpServerStdio{Name: "ed", Command: "node", Args: []string{script, "stdio"},
			Env: append([]sdk.EnvVariable{}, env...)}}}
	}
	ctx := context.Background()
	// prompt opens a session with servers on a new connection, answers the
	// questions with answers and returns them and the model's tools.
	prompt := func(servers []sdk.McpServer, answers ...string) ([]sdk.RequestPermissionRequest, []string, string) {
		t.Helper()
		c := newACPClient()
		c.answers = answers
		conn := startACP(t, e, c, false)
		if !conn.init.AgentCapabilities.McpCapabilities.Http || !conn.init.AgentCapabilities.McpCapabilities.Sse {
			t.Fatalf("mcpCapabilities: %+v", conn.init.AgentCapabilities.McpCapabilities)
		}
		ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: servers})
		if err != nil {
			t.Fatal(err)
		}
		e.srv.Reply(llmtest.Text("ok"))
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("hi")}); err != nil {
			t.Fatal(err)
		}
		var thoughts strings.Builder
		for _, u := range c.take() {
			if th := u.Update.AgentThoughtChunk; th != nil {
				thoughts.WriteString(th.Content.Text.Text)
			}
		}
		if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: ns.SessionId}); err != nil {
			t.Fatal(err)
		}
		return c.perms, toolNames(e.srv.LastRequest()), thoughts.String()
	}

	perms, tools, _ := prompt(server(sdk.EnvVariable{Name: "API_KEY", Value: "s3cret-value"}), "approve_always")
	if len(perms) != 1 || *perms[0].ToolCall.Title != "Start MCP server ed from the editor's settings?" {
		t.Fatalf("permission requests: %+v", perms)
	}
	var opts []string
	for _, o := range perms[0].Options {
		opts = append(opts, string(o.OptionId))
	}
	if strings.Join(opts, " ") != "approve_always approve_session refuse" {
		t.Errorf("options: %v", opts)
	}
	if !slices.Contains(tools, "echo") {
		t.Fatalf("tools after approval: %v", tools)
	}
	b, err := os.ReadFile(filepath.Join(e.home, "trusted-hooks.json"))
	if err != nil || !strings.Contains(string(b), `"acp-mcp:ed"`) || strings.Contains(string(b), "s3cret") {
		t.Fatalf("trusted-hooks.json: %s %v", b, err)
	}

	perms, tools, _ = prompt(server(sdk.EnvVariable{Name: "API_KEY", Value: "s3cret-value"}))
	if len(perms) != 0 || !slices.Contains(tools, "echo") {
		t.Fatalf("an approved server: asked %d times, tools %v", len(perms), tools)
	}

	perms, tools, thoughts := prompt(server(sdk.EnvVariable{Name: "API_KEY", Value: "another"}), "refuse")
	if len(perms) != 1 || slices.Contains(tools, "echo") || !strings.Contains(thoughts, "MCP server ed from the editor was refused and not started") {
		t.Fatalf("a changed server refused: asked %d times, tools %v, told %q", len(perms), tools, thoughts)
	}
	for _, c := range perms[0].ToolCall.Content {
		if c.Content != nil && c.Content.Content.Text != nil && strings.Contains(c.Content.Content.Text.Text, "another") {
			t.Errorf("the question shows a variable's value: %q", c.Content.Content.Text.Text)
		}
	}
}

// An image in a prompt reaches a model that sees as Ollama's base64
// `images` on the user message, and comes back when the session is
// loaded; a model without the vision capability gets the text only and
// the editor is told why.
func TestACPPromptImages(t *testing.T) {
	e := newSessionEnv(t)
	png := []byte("\x89PNG\r\n\x1a\n" + "not really a picture")
	b64 := base64.StdEncoding.EncodeToString(png)
	ctx := context.Background()
	run := func() (*acpClient, sdk.SessionId) {
		t.Helper()
		c := newACPClient()
		conn := startACP(t, e, c, false)
		if !conn.init.AgentCapabilities.PromptCapabilities.Image {
			t.Fatalf("promptCapabilities: %+v", conn.init.AgentCapabilities.PromptCapabilities)
		}
		ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		e.srv.Reply(llmtest.Text("A picture."))
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId,
			Prompt: []sdk.ContentBlock{sdk.TextBlock("what is this?"), sdk.ImageBlock(b64, "image/png")}}); err != nil {
			t.Fatal(err)
		}
		return c, ns.SessionId
	}
	userMsg := func() llmtest.Message {
		msgs := e.srv.LastRequest().Messages
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == "user" {
				return msgs[i]
			}
		}
		t.Fatalf("no user message: %+v", msgs)
		return llmtest.Message{}
	}

	c, _ := run() // test-model: completion and tools only
	if m := userMsg(); m.Content != "what is this?" || len(m.Images) != 0 {
		t.Errorf("a model without vision got %q with %d images", m.Content, len(m.Images))
	}
	var thoughts strings.Builder
	for _, u := range c.take() {
		if th := u.Update.AgentThoughtChunk; th != nil {
			thoughts.WriteString(th.Content.Text.Text)
		}
	}
	if !strings.Contains(thoughts.String(), "model test-model does not take images (no vision capability); the 1 image(s) were not sent") {
		t.Errorf("the editor was not told: %q", thoughts.String())
	}

	e.srv.AddModel(llmtest.Model{Name: "test-model", Capabilities: []string{"completion", "tools", "vision"}})
	_, id := run()
	if m := userMsg(); m.Content != "what is this?" || len(m.Images) != 1 || m.Images[0] != b64 {
		t.Errorf("a model with vision got %q with images %q", m.Content, m.Images)
	}
	c2 := newACPClient()
	conn2 := startACP(t, e, c2, false)
	if _, err := conn2.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: e.ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	var replayed []string
	for _, u := range c2.take() {
		if m := u.Update.UserMessageChunk; m != nil && m.Content.Image != nil {
			replayed = append(replayed, m.Content.Image.MimeType+" "+m.Content.Image.Data)
		}
	}
	if len(replayed) != 1 || replayed[0] != "image/png "+b64 {
		t.Errorf("replayed images: %q", replayed)
	}
}
