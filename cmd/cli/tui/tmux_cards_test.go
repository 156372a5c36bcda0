package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// A long command output is folded on its card, ctrl+o shows all of it
// in a real terminal, and ctrl+o again folds it (issue 27).
func TestTmuxCardExpands(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws := filepath.Join(tmp, "ws")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(home, "profile.cue"), `model: name: "test-model"
policy: rules: [{name: "seq-ok", tool: "shell", action: "allow"}]
`)
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.ToolCall("shell", map[string]any{"command": "seq 101 130"}))
	srv.Reply(llmtest.Text("Counted."))

	s := startTmux(t, tmp, bin, ws, home, srv.URL, 100, 50)
	s.waitFor("model test-model", "> ")
	s.tmux("send-keys", "-t", s.name, "-l", "count")
	s.tmux("send-keys", "-t", s.name, "Enter")

	pane := s.waitFor("Counted.", "✓ Run `seq 101 130`", "… 23 more lines (ctrl+o to expand)")
	for _, w := range []string{"101", "104", "128", "130"} {
		if !strings.Contains(pane, w) {
			t.Fatalf("the folded card lacks %q:\n%s", w, pane)
		}
	}
	if strings.Contains(pane, "115") {
		t.Fatalf("the card is not folded:\n%s", pane)
	}
	s.tmux("send-keys", "-t", s.name, "C-o")
	pane = s.waitFor("115", "(ctrl+o to collapse)")
	if strings.Contains(pane, "more lines") {
		t.Fatalf("the expanded card still folds:\n%s", pane)
	}
	s.tmux("send-keys", "-t", s.name, "C-o")
	s.waitFor("… 23 more lines (ctrl+o to expand)")

	s.tmux("send-keys", "-t", s.name, "-l", "/quit")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("[exited 0]")
}
