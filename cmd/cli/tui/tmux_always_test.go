package tui_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// TestTmuxAlwaysShowsTheRuleAndOffersTheNarrowOne: asked about
// `git status --short`, the dialog shows the rule "always" saves (every
// git command) and the narrower one (git status only); the narrow answer
// is saved to the user profile, a second `git status` runs without a
// question, and `git log` is asked about again.
func TestTmuxAlwaysShowsTheRuleAndOffersTheNarrowOne(t *testing.T) {
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
policy: rules: [{name: "git-asks", tool: "shell", action: "ask", when: {arg: "$program", equals: "git"}}]
`)
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.ToolCall("shell", map[string]any{"command": "git status --short"}))
	srv.Reply(llmtest.ToolCall("shell", map[string]any{"command": "git status"}))
	srv.Reply(llmtest.ToolCall("shell", map[string]any{"command": "git log"}))
	srv.Reply(llmtest.Text("Checked."))

	s := startTmux(t, tmp, bin, ws, home, srv.URL, 150, 45)

	s.waitFor("model test-model", "> ")
	s.tmux("send-keys", "-t", s.name, "-l", "check git")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("$ git status --short",
		`[a] saves: shell where $program equals "git"`,
		`[s] saves only: shell where $program equals "git" and $command matches "^(\\S*/)?git status( |$)"`,
		"[s] always, this sub-command only")
	s.tmux("send-keys", "-t", s.name, "s")
	s.waitFor("shell: allowed always (narrow rule)", "saved 1 allow rule(s)")

	// git status again: no question; git log: asked.
	pane := s.waitFor("$ git log", "[a] saves:", "[n] deny")
	if strings.Count(pane, "allowed always") != 1 {
		t.Errorf("git status was asked about again:\n%s", pane)
	}
	s.tmux("send-keys", "-t", s.name, "n")
	s.waitFor("Checked.")
	prof := read(t, filepath.Join(home, "profile.cue"))
	if !strings.Contains(prof, `"^(\\S*/)?git status( |$)"`) || !strings.Contains(prof, `action: "allow"`) {
		t.Fatalf("the narrow rule is not in the user profile:\n%s", prof)
	}
	s.tmux("send-keys", "-t", s.name, "-l", "/quit")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("[exited 0]")
}
