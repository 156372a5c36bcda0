package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// In a real terminal: /trust shows the workspace's plan (its MCP server),
// y approves it in place and the reload starts the server that was held
// back; a second /trust says it is approved.
func TestTmuxTrustApprovesInPlace(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logServer, err := filepath.Abs(filepath.Join("..", "..", "..", "core", "mcp", "testdata", "log_server.py"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(home, "profile.cue"), "model: name: \"test-model\"\n")
	write(t, filepath.Join(ws, "ollm.cue"), `mcp: servers: logs: {command: "python3", args: ["`+logServer+`"]}
`)
	srv := llmtest.NewOllama(t)
	s := startTmux(t, tmp, bin, ws, home, srv.URL, 140, 45)
	send := func(text string) {
		s.tmux("send-keys", "-t", s.name, "-l", text)
		s.tmux("send-keys", "-t", s.name, "Enter")
	}
	s.waitFor("Approve before the session starts", "mcp logs from this workspace", "[s] skip")
	s.tmux("send-keys", "-t", s.name, "s")
	s.waitFor("skipped mcp logs", "logs:needs-approval")
	send("/trust")
	s.waitFor("Approve this workspace?", "mcp server logs", "log_server.py", "[y] approve and reload")
	s.tmux("send-keys", "-t", s.name, "y")
	pane := s.waitFor("approved workspace "+ws, "reloaded:", "logs:ready")
	if strings.Contains(pane, "Approve this workspace?") {
		t.Fatalf("the dialog is still open:\n%s", pane)
	}
	send("/trust")
	s.waitFor("is approved at this digest already")
	send("/quit")
	s.waitFor("[exited 0]")
}

// /resume lists the saved sessions with their first prompt and switches
// to the chosen one in place: the screen shows its history, and the next
// prompt goes to the model with it.
func TestTmuxResumePicksSession(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(home, "profile.cue"), "model: name: \"test-model\"\n")
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Text("Noted: blue."))
	srv.Reply(llmtest.Text("You said blue."))
	s := startTmux(t, tmp, bin, ws, home, srv.URL, 140, 40)
	s.waitFor("model test-model", "> ")
	s.tmux("send-keys", "-t", s.name, "-l", "my colour is blue")
	enterUntilSent(s, srv, 1)
	s.waitFor("Noted: blue.")
	s.tmux("send-keys", "-t", s.name, "C-c")
	s.tmux("send-keys", "-t", s.name, "C-c")
	s.waitFor("[exited 0]", "Resume this session with: ollm --resume ")

	// A second session in the same workspace resumes the first by /resume.
	if err := os.MkdirAll(filepath.Join(tmp, "2"), 0o755); err != nil {
		t.Fatal(err)
	}
	s2 := startTmux(t, filepath.Join(tmp, "2"), bin, ws, home, srv.URL, 140, 40)
	s2.waitFor("model test-model", "> ")
	s2.tmux("send-keys", "-t", s2.name, "-l", "/resume")
	s2.tmux("send-keys", "-t", s2.name, "Enter")
	s2.waitFor("Resume a session", "2 saved", "my colour is blue", ws, "(this session)", "[enter] switch to it")
	s2.tmux("send-keys", "-t", s2.name, "Down")
	s2.tmux("send-keys", "-t", s2.name, "Enter")
	s2.waitFor("resumed: ", "earlier messages", "Noted: blue.")
	s2.tmux("send-keys", "-t", s2.name, "-l", "what colour?")
	enterUntilSent(s2, srv, 2)
	s2.waitFor("You said blue.")
	msgs := srv.LastRequest().Messages
	var users []string
	for _, m := range msgs {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if len(users) != 2 || users[0] != "my colour is blue" {
		t.Fatalf("the model got the user messages %q", users)
	}
	s2.tmux("send-keys", "-t", s2.name, "-l", "/quit")
	s2.tmux("send-keys", "-t", s2.name, "Enter")
	pane := s2.waitFor("[exited 0]")
	if n := strings.Count(pane, "Resume this session with"); n != 1 {
		t.Fatalf("%d resume hints:\n%s", n, pane)
	}
}
