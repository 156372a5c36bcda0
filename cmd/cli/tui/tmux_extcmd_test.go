package tui_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// TestTmuxExtensionCommandsAndNotifications runs the real binary in tmux
// with the greeter example extension (a persistent Python hook written with
// examples' ollm_hook.py, in ~/.ollm/extensions: the user's own) and an MCP
// server (python) that logs a warning during its handshake. The user sees
// both notifications labelled with their source, and each command action:
// display, an error line, insert (into the input box) and prompt (a turn).
// Then `ollm run` shows the same notifications on stderr and as
// stream-json events.
func TestTmuxExtensionCommandsAndNotifications(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	ext := filepath.Join(home, "extensions", "greeter")
	for _, d := range []string{ws, ext} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"manifest.json", "greeter.py", "ollm_hook.py"} {
		write(t, filepath.Join(ext, f), read(t, filepath.Join("..", "..", "..", "examples", "extensions", "greeter", f)))
	}
	logServer, err := filepath.Abs(filepath.Join("..", "..", "..", "core", "mcp", "testdata", "log_server.py"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(home, "profile.cue"), `model: name: "test-model"
mcp: servers: logs: {command: "python3", args: ["`+logServer+`"]}
`)

	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Text("Signed."))
	srv.Reply(llmtest.Text("Hi Ann!"))

	s := startTmux(t, tmp, bin, ws, home, srv.URL, 120, 40)
	send := func(text string) {
		s.tmux("send-keys", "-t", s.name, "-l", text)
		s.tmux("send-keys", "-t", s.name, "Enter")
	}

	s.waitFor("model test-model", "• [greeter] greeter ready: try /hello", "! [mcp:logs] store: disk almost full",
		`✗ [mcp:logs] store: {"code":7}`)
	send("/ext")
	s.waitFor("commands:", "/hello", "ask the model to greet you [greeter]")
	send("/about")
	s.waitFor("[greeter] greeter: /hello /sig /about /ship")
	send("/ship")
	s.waitFor("✗ [greeter] usage: /ship ENV")
	send("/ship prod")
	s.waitFor("✓ [greeter] ship prod requested")

	// insert: the text lands in the input box, not sent; Enter sends it.
	s.tmux("send-keys", "-t", s.name, "-l", "/sig")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("> -- sent with ollm")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("insert sent %d requests", n)
	}
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("Signed.")

	// prompt: a turn with the extension's text.
	send("/hello Ann")
	s.waitFor("[greeter] /hello sends a prompt", "Hi Ann!")
	reqs := srv.Requests()
	if len(reqs) != 2 || last(reqs[0]) != "-- sent with ollm" || last(reqs[1]) != "Greet Ann very briefly." {
		t.Fatalf("requests: %+v", reqs)
	}
	// A reload replaces the hook engine; the commands come back.
	send("/reload")
	s.waitFor("reloaded")
	send("/ship qa")
	s.waitFor("✓ [greeter] ship qa requested")
	send("/quit")
	s.waitFor("[exited 0]")

	// ollm run: the same notifications on stderr, and as events. (The
	// session above left the servers' tools in the tool cache, so run
	// would start mcp:logs only after its first request, and this model
	// answers at once: without the cache run waits for it, as on a
	// first run, and its warning comes before the answer.)
	if err := os.RemoveAll(filepath.Join(home, "cache", "mcp-tools")); err != nil {
		t.Fatal(err)
	}
	srv.Reply(llmtest.Text("ok"))
	env := []string{"OLLM_HOME=" + home, "OLLAMA_HOST=" + srv.URL, "TERM=xterm-256color", "OLLM_GLAMOUR_STYLE=notty", "CI="}
	run := exec.Command(bin, "run", "-p", "hi")
	run.Dir, run.Env = ws, append(os.Environ(), env...)
	var stderr bytes.Buffer
	run.Stderr = &stderr
	if out, err := run.Output(); err != nil {
		t.Fatalf("ollm run: %v\n%s\n%s", err, out, stderr.String())
	}
	for _, w := range []string{"[greeter] info: greeter ready: try /hello", "[mcp:logs] warn: store: disk almost full"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("ollm run stderr lacks %q:\n%s", w, stderr.String())
		}
	}
	srv.Reply(llmtest.Text("ok"))
	run = exec.Command(bin, "run", "--output-format", "stream-json", "-p", "hi")
	run.Dir, run.Env = ws, append(os.Environ(), env...)
	out, err := run.Output()
	if err != nil {
		t.Fatalf("ollm run stream-json: %v\n%s", err, out)
	}
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		var e struct {
			Type         string `json:"type"`
			Notification struct {
				Source, Level, Message string
			} `json:"notification"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "notification" &&
			e.Notification.Source == "greeter" && e.Notification.Level == "info" && e.Notification.Message == "greeter ready: try /hello" {
			found = true
		}
	}
	if !found {
		t.Errorf("no notification event in stream-json:\n%s", out)
	}
}

// last is the content of a request's last message.
func last(r llmtest.ChatRequest) string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}
