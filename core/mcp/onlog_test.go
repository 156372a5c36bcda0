package mcp

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestServerLogWarningsReachOnLog: a real stdio server (python) sends
// notifications/message at debug, info, warning and error; OnLog gets the
// warning and the error, with the server's name and the logger.
func TestServerLogWarningsReachOnLog(t *testing.T) {
	script, err := filepath.Abs("testdata/log_server.py")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	startManager(t, []Spec{{Name: "logs", Config: Config{Command: "python3", Args: []string{script}, Enabled: true}}},
		Options{LogDir: t.TempDir(), OnLog: func(server, level, text string) {
			mu.Lock()
			got = append(got, server+" "+level+" "+text)
			mu.Unlock()
		}})
	want := []string{"logs warning store: disk almost full", `logs error store: {"code":7}`}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // nothing more arrives (debug, info)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("OnLog got %q, want %q", got, want)
	}
}
