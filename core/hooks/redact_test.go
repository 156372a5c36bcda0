package hooks

import (
	"bytes"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
)

const (
	testSecret = "sk-very-secret-123456" // a sensitive setting
	testAPIKey = "key-from-env-987654"   // a variable with a secret-looking name
	testURLPwd = "hunter22pass"          // a URL password
)

// leakyHook is an extension hook whose sensitive setting (LOGIN, a name
// that does not look secret) and a secret-looking variable reach its
// stderr.
func leakyHook(t *testing.T, file string, ev Event, args ...string) *Hook {
	h := userHook(t, "leak", ev, file, args...)
	h.Extension = "leaky"
	h.Env = map[string]string{"LOGIN": testSecret, "URL_PASS": testURLPwd}
	h.Secrets = []string{testSecret}
	h.Def.Env = map[string]string{"MY_API_KEY": testAPIKey}
	return h
}

// assertRedacted fails if text shows a secret; want says whether it must
// show [redacted] instead.
func assertRedacted(t *testing.T, where, text string, want bool) {
	t.Helper()
	for _, s := range []string{testSecret, testAPIKey, testURLPwd, "sk-ve", "ret-123456"} {
		if strings.Contains(text, s) {
			t.Errorf("%s shows %q: %q", where, s, text)
		}
	}
	if want && !strings.Contains(text, "[redacted]") {
		t.Errorf("%s has no [redacted]: %q", where, text)
	}
}

// lockedBuffer is a log buffer the engine's goroutines may write to (on
// every system; sandbox_linux_test.go's syncBuffer is Linux only).
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *lockedBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *lockedBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestHookSecretsAreRedacted(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		check func(t *testing.T, out Outcome)
	}{
		{"crash", func(t *testing.T, out Outcome) {
			r := out.Results[0]
			if r.Failure != FailCrash || !strings.Contains(r.Error, "auth failed for token [redacted]") {
				t.Fatalf("result = %+v", r)
			}
			assertRedacted(t, "failure text", r.Error, true)
		}},
		{"block", func(t *testing.T, out Outcome) {
			if !out.Blocked {
				t.Fatalf("not blocked: %+v", out)
			}
			assertRedacted(t, "block reason (stderr, exit 2)", out.Reason, true)
		}},
		{"message", func(t *testing.T, out Outcome) {
			if !out.Blocked || out.SystemMessage() != "using [redacted]" {
				t.Fatalf("outcome = %+v", out)
			}
			assertRedacted(t, "reason", out.Reason, true)
		}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Setenv("URL_PASS", "") // only the hook's own env has it
			logs := t.TempDir()
			var slogged lockedBuffer
			e := newEngine(t, Options{LogDir: logs, Logger: slog.New(slog.NewTextHandler(&slogged, nil))},
				leakyHook(t, "leak.sh", BeforeTool, tc.mode))
			out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell", "args": map[string]any{}})
			tc.check(t, out)
			data, err := os.ReadFile(LogPath(logs, "leaky"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), "auth failed for token [redacted] api=[redacted] url=https://bot:[redacted]@example.test/x") {
				t.Errorf("extension log = %q", data)
			}
			assertRedacted(t, "extension log", string(data), true)
			assertRedacted(t, "ollm's log", slogged.String(), false)
		})
	}
}

func TestPersistentHookSecretsAreRedacted(t *testing.T) {
	logs := t.TempDir()
	var mu sync.Mutex
	var notes []Notification
	h := leakyHook(t, "persistent_leak.py", BeforeTool)
	h.Def.Persistent = true
	e := newEngine(t, Options{LogDir: logs, OnNotify: func(n Notification) {
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	}}, h)
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell", "args": map[string]any{}})
	if out.SystemMessage() != "token [redacted]" {
		t.Fatalf("system message = %q", out.SystemMessage())
	}
	_ = e.Close() // the log is complete once the process is gone
	data, err := os.ReadFile(LogPath(logs, "leaky"))
	if err != nil || !strings.Contains(string(data), "hello with [redacted]\n") {
		t.Fatalf("extension log = %q, %v", data, err)
	}
	assertRedacted(t, "extension log", string(data), true)
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || notes[0].Message != "logged in as [redacted]" {
		t.Fatalf("notifications = %+v", notes)
	}
}

func TestRedactingWriterJoinsSplitWrites(t *testing.T) {
	var b bytes.Buffer
	w := newRedactingWriter(&b, []string{"abcdef"})
	for _, p := range []string{"x ab", "cd", "ef y\nlast abc", "def"} {
		_, _ = w.Write([]byte(p))
	}
	_ = w.Close()
	if b.String() != "x [redacted] y\nlast [redacted]" {
		t.Fatalf("got %q", b.String())
	}
}
