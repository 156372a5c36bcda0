package hooks

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func persistentHook(t *testing.T, name, file string, args ...string) *Hook {
	h := userHook(t, name, BeforeTool, file, args...)
	h.Def.Persistent = true
	return h
}

func TestPersistentHookKeepsOneProcess(t *testing.T) {
	pids := pidFile(t)
	e := newEngine(t, Options{}, persistentHook(t, "p", "persistent.py"))
	var msgs []string
	for range 3 {
		out := emit(t, e, BeforeTool, map[string]any{"tool_name": "x"})
		if out.Results[0].Failure != "" {
			t.Fatalf("result = %+v", out.Results[0])
		}
		msgs = append(msgs, out.SystemMessage())
	}
	p := pids()
	if len(p) != 1 {
		t.Fatalf("started %d processes, want 1", len(p))
	}
	for i, m := range msgs {
		if !strings.HasSuffix(m, "event "+string(rune('1'+i))+" before_tool") {
			t.Errorf("answer %d = %q", i, m)
		}
	}
	_ = e.Close()
	assertGone(t, p)
}

func TestPersistentHookRestartsWithBackoffAfterACrash(t *testing.T) {
	pids := pidFile(t)
	e := newEngine(t, Options{Persistent: PersistentOptions{BackoffBase: 300 * time.Millisecond}},
		persistentHook(t, "p", "persistent.py", "--crash-after", "1"))
	data := map[string]any{"tool_name": "x"}
	if out := emit(t, e, BeforeTool, data); out.Results[0].Failure != "" {
		t.Fatalf("first call: %+v", out.Results[0])
	}
	if out := emit(t, e, BeforeTool, data); out.Results[0].Failure != FailCrash {
		t.Fatalf("second call should see the crash: %+v", out.Results[0])
	}
	out := emit(t, e, BeforeTool, data)
	if out.Results[0].Failure != FailStart || !strings.Contains(out.Results[0].Error, "next restart in") {
		t.Fatalf("a call within the backoff should not restart: %+v", out.Results[0])
	}
	time.Sleep(350 * time.Millisecond)
	if out := emit(t, e, BeforeTool, data); out.Results[0].Failure != "" || !strings.HasSuffix(out.SystemMessage(), "event 1 before_tool") {
		t.Fatalf("after the backoff a new process should answer: %+v", out)
	}
	if p := pids(); len(p) != 2 {
		t.Fatalf("pids = %v, want two processes", p)
	}
	_ = e.Close()
	assertGone(t, pids())
}

func TestPersistentHandshakeTimeout(t *testing.T) {
	pids := pidFile(t)
	h := persistentHook(t, "silent", "persistent_silent.sh")
	h.Def.FailClosed = true
	e := newEngine(t, Options{Persistent: PersistentOptions{Handshake: 200 * time.Millisecond}}, h)
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "x"})
	if !out.Blocked || out.Results[0].Failure != FailStart || !strings.Contains(out.Results[0].Error, "did not answer hello") {
		t.Fatalf("outcome = %+v", out)
	}
	assertGone(t, pids())
}

func TestPersistentCleanShutdown(t *testing.T) {
	done := filepath.Join(t.TempDir(), "shutdown")
	t.Setenv("SHUTDOWN_FILE", done)
	e := newEngine(t, Options{}, persistentHook(t, "p", "persistent_shutdown.py"))
	emit(t, e, BeforeTool, map[string]any{"tool_name": "x"})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(done)
	if err != nil || string(data) != "clean\n" {
		t.Fatalf("the hook did not get a shutdown request: %q, %v", data, err)
	}
}

func TestPersistentConcurrentCalls(t *testing.T) {
	pidFile(t)
	e := newEngine(t, Options{}, persistentHook(t, "p", "persistent.py"))
	errs := make(chan string, 20)
	for range 20 {
		go func() {
			out, err := e.Emit(t.Context(), BeforeTool, map[string]any{"tool_name": "x"})
			switch {
			case err != nil:
				errs <- err.Error()
			case out.Results[0].Failure != "":
				errs <- out.Results[0].Error
			default:
				errs <- ""
			}
		}()
	}
	for range 20 {
		if msg := <-errs; msg != "" {
			t.Error(msg)
		}
	}
}

func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 100, 2: 200, 3: 400, 10: 1000} {
		if got := Backoff(n, 100, 1000); got != want {
			t.Errorf("Backoff(%d) = %v, want %v", n, got, want)
		}
	}
}

// The hello tells a persistent hook what seed 002's hello_ack tells an
// extension: the project directory, the provider, the model and ollm's
// version.
func TestPersistentHelloCarriesHostInfo(t *testing.T) {
	cwd := t.TempDir()
	h := persistentHook(t, "p", "persistent_hello.py")
	h.Extension = "greeter"
	e := newEngine(t, Options{Session: Session{ID: "sess-9", Cwd: cwd}, Version: "v1.2.3",
		Model: func() string { return "qwen3:8b" }, Provider: func() string { return "ollama" }}, h)
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "x"})
	var hello map[string]any
	if err := json.Unmarshal([]byte(out.SystemMessage()), &hello); err != nil {
		t.Fatalf("answer %q: %v", out.SystemMessage(), err)
	}
	want := map[string]any{"type": "hello", "protocolVersion": ProtocolVersion, "hookName": "p", "extension": "greeter",
		"sessionId": "sess-9", "cwd": cwd, "provider": "ollama", "model": "qwen3:8b", "ollmVersion": "v1.2.3"}
	if !maps.Equal(hello, want) {
		t.Fatalf("hello = %v\nwant    %v", hello, want)
	}
}
