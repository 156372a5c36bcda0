package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/store"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// `ollm ext logs NAME -f` prints what is there, then what is appended to
// the extension's log and to server logs that appear later, until
// interrupted.
func TestExtLogsFollow(t *testing.T) {
	home := store.Home{Dir: t.TempDir()}
	if err := os.MkdirAll(home.Logs(), 0o755); err != nil {
		t.Fatal(err)
	}
	hookLog := hooks.LogPath(home.Logs(), "demo")
	if err := os.WriteFile(hookLog, []byte("first line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := &ExtOptions{IO: &IOStreams{Out: out, ErrOut: out}, Context: ctx, Name: "demo", Follow: true,
		Home: func() (store.Home, error) { return home, nil }}
	done := make(chan error, 1)
	go func() { done <- extLogsRun(o) }()

	waitFor(t, out, "first line")
	f, err := os.OpenFile(hookLog, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("appended later\n")
	f.Close()
	serverLog := filepath.Join(home.Logs(), "mcp-demo_files.log")
	if err := os.WriteFile(serverLog, []byte("server started\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "appended later")
	waitFor(t, out, "server started")
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("ext logs -f returned %v after interrupt", err)
	}
}

// waitFor waits until out contains want; the deadline only bounds a hang.
func waitFor(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(out.String(), want) {
			return
		}
	}
	t.Fatalf("output never showed %q:\n%s", want, out.String())
}
