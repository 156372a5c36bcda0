package tui_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// TestTmuxTrustFileDialog: in yolo mode, a write to .git/config still
// opens a dialog that names it as a file that decides what runs and
// offers no "always"; "a" does not answer it, "y" writes that one call;
// the next write to git's hooks is asked again and "n" leaves it unwritten.
func TestTmuxTrustFileDialog(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write(t, filepath.Join(home, "profile.cue"), `model: name: "test-model"
policy: mode: "yolo"
`)
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.ToolCall("edit_file", map[string]any{"path": ".git/config", "edits": []any{map[string]any{"oldText": "[core]", "newText": "[core]\n\tautocrlf = false"}}}))
	srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"}))
	srv.Reply(llmtest.Text("Configured."))

	s := startTmux(t, tmp, bin, ws, home, srv.URL, 150, 45)
	s.waitFor("model test-model", "> ")
	s.tmux("send-keys", "-t", s.name, "-l", "configure git")
	s.tmux("send-keys", "-t", s.name, "Enter")
	pane := s.waitFor("a file that decides what runs", ".git/config belongs to git", `[y] allow this one write`)
	if strings.Contains(pane, "[a] allow always") || strings.Contains(pane, "[a] saves") {
		t.Errorf("the dialog offers always:\n%s", pane)
	}
	s.tmux("send-keys", "-t", s.name, "a") // not an answer here
	s.tmux("send-keys", "-t", s.name, "y")
	s.waitFor(".git/hooks/pre-commit belongs to git", `[y] allow this one write`)
	if !strings.Contains(read(t, filepath.Join(ws, ".git", "config")), "autocrlf = false") {
		t.Error(".git/config was not edited after y")
	}
	s.tmux("send-keys", "-t", s.name, "n")
	s.waitFor("Configured.")
	if _, err := os.Stat(filepath.Join(ws, ".git", "hooks", "pre-commit")); !os.IsNotExist(err) {
		t.Errorf("pre-commit was written after n: %v", err)
	}
	if prof := read(t, filepath.Join(home, "profile.cue")); strings.Contains(prof, "allow") {
		t.Errorf("a rule was saved:\n%s", prof)
	}
	s.tmux("send-keys", "-t", s.name, "-l", "/quit")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("[exited 0]")
}
