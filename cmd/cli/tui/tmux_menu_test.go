package tui_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// In a real terminal: "/" opens the menu of every command with its
// description (a profile skill among the built-in ones), typing narrows
// it, Tab completes the chosen name, and the skill runs with its argument.
func TestTmuxSlashMenu(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(home, "profile.cue"), `model: name: "test-model"
skills: [{name: "changelog", description: "Write a changelog entry", prompt: "Write a changelog entry for {change}."}]
`)
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Text("Entry written."))
	s := startTmux(t, tmp, bin, ws, home, srv.URL, 120, 40)
	s.waitFor("model test-model", "> ")
	s.tmux("send-keys", "-t", s.name, "-l", "/")
	s.waitFor("▸ /help", "the commands and keys", "/model [name]", "/trust", "tab complete")
	s.tmux("send-keys", "-t", s.name, "-l", "ch")
	pane := s.waitFor("▸ /changelog <change>", "Write a changelog entry", "· skill")
	if strings.Contains(pane, "the commands and keys") {
		t.Fatalf("the menu was not narrowed:\n%s", pane)
	}
	s.tmux("send-keys", "-t", s.name, "Tab")
	waitBottom(s, 1, "> /changelog")
	s.tmux("send-keys", "-t", s.name, "-l", "change=v2")
	enterUntilSent(s, srv, 1)
	s.waitFor("Entry written.")
	if got := lastUser(srv); !strings.Contains(got, "Write a changelog entry for v2.") {
		t.Fatalf("the model got %q", got)
	}
	s.tmux("send-keys", "-t", s.name, "-l", "/quit")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("[exited 0]")
}

// "@" completes a workspace file (not one .gitignore ignores), the model
// gets the file's contents with the prompt, and the exit says how to
// resume the session, once, after the full screen is gone.
func TestTmuxMentionAttachesFile(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{filepath.Join(ws, "notes"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write(t, filepath.Join(ws, ".gitignore"), "*.log\n")
	write(t, filepath.Join(ws, "notes", "plan.md"), "THE PLAN: ship on friday\n")
	write(t, filepath.Join(ws, "plans.log"), "ignored\n")
	write(t, filepath.Join(home, "profile.cue"), "model: name: \"test-model\"\n")
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Text("Friday it is."))
	s := startTmux(t, tmp, bin, ws, home, srv.URL, 120, 40)
	s.waitFor("model test-model", "> ")
	s.tmux("send-keys", "-t", s.name, "-l", "summarise @pla")
	pane := s.waitFor("▸ @notes/plan.md", "tab/enter attach")
	if strings.Contains(pane, "plans.log") {
		t.Fatalf("an ignored file is offered:\n%s", pane)
	}
	s.tmux("send-keys", "-t", s.name, "Tab")
	waitBottom(s, 1, "> summarise @notes/plan.md")
	enterUntilSent(s, srv, 1)
	s.waitFor("attached @notes/plan.md (25 bytes)", "Friday it is.")
	if got := lastUser(srv); !strings.HasPrefix(got, "summarise @notes/plan.md") || !strings.Contains(got, "Content from @notes/plan.md:\nTHE PLAN: ship on friday") {
		t.Fatalf("the model got %q", got)
	}
	s.tmux("send-keys", "-t", s.name, "-l", "/quit")
	s.tmux("send-keys", "-t", s.name, "Enter")
	pane = s.waitFor("[exited 0]")
	if n := strings.Count(pane, "Resume this session with: ollm --resume "); n != 1 {
		t.Fatalf("the resume hint shows %d times:\n%s", n, pane)
	}
	ents, err := os.ReadDir(filepath.Join(home, "sessions"))
	if err != nil || len(ents) != 1 {
		t.Fatalf("sessions: %v %v", ents, err)
	}
	if id := strings.TrimSuffix(ents[0].Name(), ".jsonl"); !strings.Contains(pane, "ollm --resume "+id) {
		t.Fatalf("the hint does not name session %s:\n%s", id, pane)
	}
}
