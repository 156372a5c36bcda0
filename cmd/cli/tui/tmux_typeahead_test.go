package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// At a terminal, `ollm trust`'s [y/N] question ignores what was typed
// before it appeared: "y" and Enter typed while a gate holds ollm back are
// in the terminal's input queue (the pane echoes them), yet the question
// waits, and the "n" typed after it answers. Then a "y" typed after the
// question approves, and Ctrl-C at the question still interrupts.
func TestTmuxTrustPromptIgnoresTypeAhead(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(ws, "ollm.cue"), "policy: mode: \"yolo\"\n")
	gate := filepath.Join(tmp, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	open := func() { // lets the next `ollm trust` start
		t.Helper()
		if err := os.WriteFile(gate, []byte("go\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	approvals := filepath.Join(home, "trusted-workspaces.json")
	loop := "trap true INT; for i in 1 2 3; do read g < " + gate + "; " + bin + " trust; echo [trust $i exited $?]; done"
	s := startTmux(t, tmp, loop, ws, home, "http://127.0.0.1:9", 120, 40)

	s.tmux("send-keys", "-t", s.name, "y", "Enter")
	s.waitFor("y")
	open()
	s.waitFor("Approve this workspace? [y/N]")
	s.tmux("send-keys", "-t", s.name, "n", "Enter")
	pane := s.waitFor("[trust 1 exited 3]")
	if !strings.Contains(pane, "not approved") {
		t.Fatalf("the typed-ahead y answered:\n%s", pane)
	}
	if _, err := os.Stat(approvals); err == nil {
		t.Fatalf("the workspace was approved by type-ahead:\n%s", read(t, approvals))
	}

	open()
	waitAfter(s, "[trust 1 exited 3]", "Approve this workspace? [y/N]")
	s.tmux("send-keys", "-t", s.name, "y", "Enter")
	s.waitFor("[trust 2 exited 0]")
	if !strings.Contains(read(t, approvals), ws) {
		t.Fatalf("a y after the question did not approve:\n%s", read(t, approvals))
	}

	write(t, filepath.Join(ws, "ollm.cue"), "policy: mode: \"auto_edit\"\n") // asks again
	open()
	waitAfter(s, "[trust 2 exited 0]", "Approve this workspace? [y/N]")
	s.tmux("send-keys", "-t", s.name, "C-c")
	s.waitFor("[trust 3 exited 130]")
}

// waitAfter polls the pane until want shows after the first after.
func waitAfter(s *tmuxSession, after, want string) {
	s.t.Helper()
	for {
		pane := s.capture()
		if i := strings.Index(pane, after); i >= 0 && strings.Contains(pane[i:], want) {
			return
		}
		time.Sleep(50 * time.Millisecond) // the test's -timeout bounds a hang
	}
}

// At a terminal, Ctrl-C at `ollm tools call`'s [y/N] question ends it
// with status 130 (like the trust question and the session's dialogs),
// and the call does not run.
func TestTmuxToolsCallPromptCtrlC(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(home, "profile.cue"), `policy: rules: [{name: "writes-ask", tool: "write_file", action: "ask"}]`+"\n")
	call := "trap true INT; " + bin + ` tools call write_file '{"path":"x.txt","content":"hi"}'; echo [tools exited $?]`
	s := startTmux(t, tmp, call, ws, home, "http://127.0.0.1:9", 120, 40)
	s.waitFor("Run it? [y/N]")
	s.tmux("send-keys", "-t", s.name, "C-c")
	s.waitFor("[tools exited 130]")
	if _, err := os.Stat(filepath.Join(ws, "x.txt")); err == nil {
		t.Fatal("the call ran after Ctrl-C at its question")
	}
}
