package mcp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A server killed by a signal ollm did not send says which signal, by its
// name, and what usually sends it, not "killed by killed".
func TestSignalNamedInError(t *testing.T) {
	m := startManager(t, []Spec{faultSpec(t, "k", "sigkill")}, Options{Restart: Backoff{Max: -1}})
	res := run(t, mustLookup(t, m, "k:crash"), `{}`, nil)
	want := "process was killed by SIGKILL (killed), not sent by ollm: the kernel's out-of-memory killer or another process"
	if res.Error == nil || !strings.Contains(res.Error.Message, want) {
		t.Fatalf("crash: %+v", res)
	}
}

// A process that ignores its closed stdin gets SIGTERM after the grace,
// and its exit says ollm sent it.
func TestStopEscalatesAndSaysWhoSignalled(t *testing.T) {
	p, err := startProcess("sleep", []string{"1000"}, os.Environ(), "", io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.stop(time.Millisecond)
	if got, want := p.exitDescription(), "was killed by SIGTERM (terminated), sent by ollm when it stopped the server"; got != want {
		t.Fatalf("exit %q, want %q", got, want)
	}
}

// Only starts the named servers: a command about one server does not wait
// for a server that never answers, and never starts it.
func TestOnlyStartsTheNamedServer(t *testing.T) {
	record := filepath.Join(t.TempDir(), "record")
	hang := faultSpec(t, "hang", "noinit", "OLLM_MCP_FAULT_RECORD="+record)
	m := startManager(t, []Spec{hang, faultSpec(t, "f", "normal")}, Options{Only: []string{"f"}})
	st := m.Status()
	if len(st) != 1 || st[0].Name != "f" || st[0].State != StateReady {
		t.Fatalf("status %+v", st)
	}
	res, err := m.Call(context.Background(), ToolKey{"f", "echo"}, []byte(`{"text":"hi"}`), nil)
	if err != nil || res.ForModel != "hi" {
		t.Fatalf("%+v %v", res, err)
	}
	m.Close()
	if _, err := os.Stat(record); err == nil {
		t.Fatalf("the other server was started: %q", readFile(record))
	}
}
