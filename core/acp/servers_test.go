package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/schema"
)

// An editor's server becomes a user-scope spec; its approval hash changes
// with any part of the configuration, values of variables and headers are
// never shown, and a server over a transport ollm does not offer is
// refused with a reason.
func TestEditorSpec(t *testing.T) {
	stdio := func(arg, key string) sdk.McpServer {
		return sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "ed", Command: "node", Args: []string{"srv.js", arg},
			Env: []sdk.EnvVariable{{Name: "API_KEY", Value: key}}}}
	}
	spec, h1, desc, err := editorSpec(stdio("a", "secret-1"))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Name != "ed" || spec.Scope != schema.ScopeUser || spec.Config.Transport != "stdio" || spec.Config.Env["API_KEY"] != "secret-1" || !spec.Config.Enabled {
		t.Fatalf("spec: %+v", spec)
	}
	if d := strings.Join(desc, "\n"); d != "command: node srv.js a\nenv: API_KEY=…" {
		t.Errorf("description: %q", d)
	}
	_, again, _, _ := editorSpec(stdio("a", "secret-1"))
	_, otherKey, _, _ := editorSpec(stdio("a", "secret-2"))
	_, otherArg, _, _ := editorSpec(stdio("b", "secret-1"))
	if h1 != again || h1 == otherKey || h1 == otherArg || otherKey == otherArg || !strings.HasPrefix(h1, "sha256:") {
		t.Errorf("hashes: %s %s %s %s", h1, again, otherKey, otherArg)
	}

	spec, _, desc, err = editorSpec(sdk.McpServer{Http: &sdk.McpServerHttpInline{Name: "web", Type: "http", Url: "http://127.0.0.1:9/mcp",
		Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer t0ken"}}}})
	if err != nil || spec.Config.Transport != "http" || spec.Config.Headers["Authorization"] != "Bearer t0ken" ||
		strings.Join(desc, "\n") != "url: http://127.0.0.1:9/mcp\nheader: Authorization=…" {
		t.Errorf("http: %+v %q %v", spec.Config, desc, err)
	}
	if _, _, _, err := editorSpec(sdk.McpServer{Acp: &sdk.McpServerAcpInline{}}); err == nil || !strings.Contains(err.Error(), "transport ollm does not offer") {
		t.Errorf("acp transport: %v", err)
	}
}

// session/list: the sessions of one directory, the latest first, titled
// by the first line of their first prompt; a cursor ollm did not give is
// refused.
func TestListSessions(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	mk := func(id, cwd, prompt string, age time.Duration) {
		t.Helper()
		tr, err := agent.Create(dir, id, cwd, "m", nil)
		if err != nil {
			t.Fatal(err)
		}
		if prompt != "" {
			if err := tr.Append(llm.Message{Role: llm.RoleUser, Content: prompt}); err != nil {
				t.Fatal(err)
			}
		}
		tr.Close()
		ts := now.Add(-age)
		if err := os.Chtimes(filepath.Join(dir, id+".jsonl"), ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	mk("old", "/ws", "first\nsecond line", 2*time.Hour)
	mk("new", "/ws", strings.Repeat("x", 100), time.Hour)
	mk("empty", "/ws", "", 0)
	mk("other", "/elsewhere", "hi", 0)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := listSessions(dir, "/ws/", "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range resp.Sessions {
		title := ""
		if s.Title != nil {
			title = *s.Title
		}
		got = append(got, string(s.SessionId)+":"+title)
	}
	want := []string{"empty:", "new:" + strings.Repeat("x", 79) + "…", "old:first"}
	if strings.Join(got, "|") != strings.Join(want, "|") || resp.NextCursor != nil {
		t.Errorf("got %q, next %v", got, resp.NextCursor)
	}
	if all, _ := listSessions(dir, "", ""); len(all.Sessions) != 4 {
		t.Errorf("without cwd: %d sessions", len(all.Sessions))
	}
	if rest, err := listSessions(dir, "/ws", "2"); err != nil || len(rest.Sessions) != 1 || rest.Sessions[0].SessionId != "old" {
		t.Errorf("from cursor 2: %+v %v", rest.Sessions, err)
	}
	if _, err := listSessions(dir, "", "abc"); err == nil {
		t.Error("a cursor ollm did not give was accepted")
	}
	if none, err := listSessions(filepath.Join(dir, "missing"), "", ""); err != nil || none.Sessions == nil || len(none.Sessions) != 0 {
		t.Errorf("no sessions directory: %+v %v", none, err)
	}
}
