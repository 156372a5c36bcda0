package tui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// bottom is the last n non-empty rows of the pane, right-trimmed: the
// input box sits there.
func bottom(pane string, n int) string {
	var rows []string
	for _, r := range strings.Split(pane, "\n") {
		if r = strings.TrimRight(r, " "); r != "" {
			rows = append(rows, r)
		}
	}
	return strings.Join(rows[max(len(rows)-n, 0):], "\n")
}

// waitBottom polls until the last n rows of the pane are want.
func waitBottom(s *tmuxSession, n int, want string) {
	s.t.Helper()
	for i := 1; ; i++ {
		pane := s.capture()
		if bottom(pane, n) == want {
			return
		}
		if i%100 == 0 {
			s.t.Logf("still waiting for the input %q; the pane:\n%s", want, pane)
		}
		time.Sleep(50 * time.Millisecond) // the test's -timeout bounds a hang
	}
}

// enterUntilSent presses Enter until the model has n requests: Enter while
// the last turn is still ending keeps the input, and once it was sent the
// input is empty, so a second Enter sends nothing.
func enterUntilSent(s *tmuxSession, srv *llmtest.Ollama, n int) {
	s.t.Helper()
	for len(srv.Requests()) < n {
		s.tmux("send-keys", "-t", s.name, "Enter")
		time.Sleep(100 * time.Millisecond) // the test's -timeout bounds a hang
	}
}

func lastUser(srv *llmtest.Ollama) string {
	req := srv.LastRequest()
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// In a real terminal: words that are key names, typed in one write,
// reach the model as typed; a bracketed paste of three lines does not
// send early and is sent whole by Enter; Up recalls the last prompt, also
// after ollm restarts in the workspace; Ctrl+G edits the input in
// $VISUAL.
func TestTmuxInputIsWhatWasTyped(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(home, "profile.cue"), "model: name: \"test-model\"\n")
	editor := filepath.Join(tmp, "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nprintf '%s from the editor' \"$(cat \"$1\")\" > \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Text("Reply one."))
	srv.Reply(llmtest.Text("Reply two."))
	srv.Reply(llmtest.Text("Reply three."))

	run := "VISUAL=" + editor + " " + bin
	rc := filepath.Join(tmp, "first.rc")
	s := startTmux(t, tmp, run+"; echo $? > "+rc+"; "+run, ws, home, srv.URL, 100, 24)
	s.waitFor("model test-model", "> ")

	typed := "clean up tmp and go down left"
	s.tmux("send-keys", "-t", s.name, "-l", typed)
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("Reply one.")
	if got := lastUser(srv); got != typed {
		t.Fatalf("the model got %q, want %q", got, typed)
	}

	s.tmux("set-buffer", "-b", "three", "line one\nline two up\nline three")
	s.tmux("paste-buffer", "-p", "-b", "three", "-t", s.name)
	waitBottom(s, 3, "> line one\n  line two up\n  line three")
	enterUntilSent(s, srv, 2)
	s.waitFor("Reply two.")
	if got := lastUser(srv); got != "line one\nline two up\nline three" {
		t.Fatalf("the model got %q after the paste", got)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("the model got %d requests, want 2 (the paste sent early)", n)
	}

	s.tmux("send-keys", "-t", s.name, "Up")
	waitBottom(s, 3, "> line one\n  line two up\n  line three")
	s.tmux("send-keys", "-t", s.name, "Down") // back to the (empty) draft
	waitBottom(s, 1, "> Ask anything; /help for commands")
	s.tmux("send-keys", "-t", s.name, "-l", "/quit")
	s.tmux("send-keys", "-t", s.name, "Enter")
	// The second ollm: the status line, none of the first's conversation.
	for pane := s.capture(); strings.Contains(pane, "Reply two.") || !strings.Contains(pane, "model test-model"); pane = s.capture() {
		time.Sleep(50 * time.Millisecond)
	}
	if got := read(t, rc); got != "0\n" {
		t.Fatalf("the first ollm exited %q", got)
	}
	s.tmux("send-keys", "-t", s.name, "Up")
	waitBottom(s, 1, "> /quit")
	s.tmux("send-keys", "-t", s.name, "Up")
	waitBottom(s, 3, "> line one\n  line two up\n  line three")
	s.tmux("send-keys", "-t", s.name, "Up", "Up", "Up")
	waitBottom(s, 1, "> "+typed)

	s.tmux("send-keys", "-t", s.name, "Down", "Down", "Down")
	waitBottom(s, 1, "> Ask anything; /help for commands")
	s.tmux("send-keys", "-t", s.name, "-l", "draft")
	s.tmux("send-keys", "-t", s.name, "C-g")
	waitBottom(s, 1, "> draft from the editor")
	enterUntilSent(s, srv, 3)
	s.waitFor("Reply three.")
	if got := lastUser(srv); got != "draft from the editor" {
		t.Fatalf("the model got %q after the editor", got)
	}
	files, _ := filepath.Glob(filepath.Join(home, "history", "*-ws.jsonl"))
	if len(files) != 1 {
		t.Fatalf("history files: %v", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file %s: %v %v", files[0], fi.Mode(), err)
	}
	if h := read(t, files[0]); !strings.Contains(h, `"draft from the editor"`) {
		t.Fatalf("history file:\n%s", h)
	}
}

// At 100x24 the dialog of an 80-line write shows a window of the diff
// with "lines a-b of N"; End scrolls to its last line, which was not on
// screen, and y then writes the file.
func TestTmuxApprovalScrollsLongDiff(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(home, "profile.cue"), `model: name: "test-model"
policy: rules: [{name: "writes-ask", tool: "write_file", action: "ask"}]
`)
	var content strings.Builder
	for i := 1; i <= 80; i++ {
		fmt.Fprintf(&content, "row number %d\n", i)
	}
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "big.txt", "content": content.String()}))
	srv.Reply(llmtest.Text("Wrote it."))

	s := startTmux(t, tmp, bin, ws, home, srv.URL, 100, 24)
	s.waitFor("model test-model", "> ")
	s.tmux("send-keys", "-t", s.name, "-l", "write big.txt")
	s.tmux("send-keys", "-t", s.name, "Enter")
	pane := s.waitFor("Allow write_file?", "+row number 1 ", "lines 1-", "[y] allow once")
	if strings.Contains(pane, "+row number 80") {
		t.Fatalf("the whole diff fits at 100x24?\n%s", pane)
	}
	s.tmux("send-keys", "-t", s.name, "End")
	pane = s.waitFor("+row number 80", "the end")
	if _, err := os.Stat(filepath.Join(ws, "big.txt")); err == nil {
		t.Fatalf("the file was written before the answer:\n%s", pane)
	}
	s.tmux("send-keys", "-t", s.name, "y")
	s.waitFor("Wrote it.")
	if got := read(t, filepath.Join(ws, "big.txt")); got != content.String() {
		t.Fatalf("big.txt = %q", got)
	}
}
