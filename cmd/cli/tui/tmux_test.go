package tui_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// tmuxSession drives the real binary in a detached tmux session.
type tmuxSession struct {
	t    *testing.T
	name string
	sock string
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxSession) capture() string { return s.tmux("capture-pane", "-p", "-t", s.name) }

// waitFor polls the pane until it shows every want. There is no time
// limit of its own: the test binary's -timeout bounds a hang, and the
// pane is printed when the test fails.
func (s *tmuxSession) waitFor(want ...string) string {
	s.t.Helper()
	for i := 1; ; i++ {
		pane := s.capture()
		if i%100 == 0 { // every few seconds, for a hang that -timeout ends
			s.t.Logf("still waiting for %q; the pane:\n%s", want, pane)
		}
		ok := true
		for _, w := range want {
			if !strings.Contains(pane, w) {
				ok = false
			}
		}
		if ok {
			return pane
		}
		if strings.Contains(pane, "[exited]") || !s.alive() {
			s.t.Fatalf("ollm exited before showing %q:\n%s", want, pane)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tmuxSetup fails without tmux and returns a temporary directory for the
// test and the ollm binary, built once for all of the package's tmux
// tests.
func tmuxSetup(t *testing.T) (tmp, bin string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is required for the real-terminal test")
	}
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "ollm-tmux-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "ollm")
		if out, err := exec.Command("go", "build", "-o", built.bin, "github.com/ollm/ollm/cmd/ollm").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return t.TempDir(), built.bin
}

// built is the ollm binary the tmux tests share; TestMain removes it.
var built struct {
	once sync.Once
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.bin != "" {
		os.RemoveAll(filepath.Dir(built.bin))
	}
	os.Exit(code)
}

// startTmux runs bin in a detached tmux session (w x h) in ws, with
// OLLM_HOME=home and the fake Ollama at ollama. The pane stays after ollm
// exits ("[exited N]") and is printed when the test fails.
func startTmux(t *testing.T, tmp, bin, ws, home, ollama string, w, h int) *tmuxSession {
	t.Helper()
	s := &tmuxSession{t: t, name: "ollm", sock: filepath.Join(tmp, "tmux.sock")}
	args := []string{"new-session", "-d", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "-s", s.name, "-c", ws}
	for _, e := range []string{"OLLM_HOME=" + home, "OLLAMA_HOST=" + ollama, "TERM=xterm-256color", "OLLM_GLAMOUR_STYLE=notty", "CI="} {
		args = append(args, "-e", e)
	}
	args = append(args, "sh", "-c", bin+"; echo [exited $?]; sleep 600")
	s.tmux(args...)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pane at failure:\n%s", s.capture())
		}
	})
	return s
}

func (s *tmuxSession) alive() bool {
	return exec.Command("tmux", "-S", s.sock, "has-session", "-t", s.name).Run() == nil
}

func TestTmuxSessionWithConfirmation(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws := filepath.Join(tmp, "ws")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The user profile (trusted) carries the ask rule; the workspace has an
	// ollm.cue naming the model.
	write(t, filepath.Join(home, "profile.cue"), `model: name: "test-model"
policy: rules: [{name: "writes-ask", tool: "write_file", action: "ask"}]
`)
	write(t, filepath.Join(ws, "ollm.cue"), "model: name: \"test-model\"\n")
	write(t, filepath.Join(ws, "hello.txt"), "hello\n")

	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Text("I will **update** the file."), llmtest.ToolCall("write_file", map[string]any{"path": "hello.txt", "content": "hello, tmux\n", "overwrite": true}))
	srv.Reply(llmtest.Text("Done: `hello.txt` now greets tmux."))

	s := startTmux(t, tmp, bin, ws, home, srv.URL, 120, 40)

	s.waitFor("model test-model", "> ")
	s.tmux("send-keys", "-t", s.name, "-l", "update hello.txt")
	s.tmux("send-keys", "-t", s.name, "Enter")

	pane := s.waitFor("Allow write_file?", "[y] allow once")
	for _, w := range []string{"-hello", "+hello, tmux", "writes-ask", "? Write hello.txt  waiting for you", "I will", "the file."} {
		if !strings.Contains(pane, w) {
			t.Fatalf("the confirmation lacks %q:\n%s", w, pane)
		}
	}
	if got := read(t, filepath.Join(ws, "hello.txt")); got != "hello\n" {
		t.Fatalf("the file changed before the answer: %q", got)
	}

	s.tmux("send-keys", "-t", s.name, "y")
	pane = s.waitFor("hello.txt now greets tmux", "✓ Write hello.txt")
	if strings.Contains(pane, "[y] allow once") {
		t.Fatalf("the dialog is still open:\n%s", pane)
	}
	// The card shows the diff that was approved, once the write is done.
	if card := pane[strings.Index(pane, "✓ Write hello.txt"):]; !strings.Contains(card, "Overwrote hello.txt") || !strings.Contains(card, "-hello") || !strings.Contains(card, "+hello, tmux") {
		t.Fatalf("the card lacks the result or the diff:\n%s", pane)
	}
	if got := read(t, filepath.Join(ws, "hello.txt")); got != "hello, tmux\n" {
		t.Fatalf("hello.txt = %q after allowing the write", got)
	}

	s.tmux("send-keys", "-t", s.name, "-l", "/quit")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("[exited 0]")
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("the model got %d requests, want 2", n)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
