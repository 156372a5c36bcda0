package mcp

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// DefaultMaxLogBytes caps one server's log file per session, so a server
// that floods notifications or stderr cannot fill the disk.
const DefaultMaxLogBytes = 16 << 20

const stderrTail = 4 << 10

// serverLog is a server's log file: slog records, server log messages and
// its stderr, capped in size. It keeps the end of stderr for error
// messages. A nil file (no log directory) keeps only the tail.
type serverLog struct {
	mu      sync.Mutex
	path    string
	f       *os.File
	written int64
	max     int64
	full    bool
	tail    []byte
}

// openServerLog opens (appending) <dir>/mcp-<name>.log.
func openServerLog(dir, name string, max int64) (*serverLog, error) {
	l := &serverLog{max: max}
	if dir == "" {
		return l, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	l.path = filepath.Join(dir, "mcp-"+sanitizeName(name)+".log")
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	l.f = f
	return l, nil
}

// Write appends to the file until the cap, then notes the cut once.
func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil || l.full {
		return len(p), nil
	}
	if l.written+int64(len(p)) > l.max {
		l.full = true
		fmt.Fprintf(l.f, "--- log cut at %d bytes; later output dropped ---\n", l.written)
		return len(p), nil
	}
	n, err := l.f.Write(p)
	l.written += int64(n)
	if err != nil {
		return n, err
	}
	return len(p), nil
}

// stderr is the writer for the server's stderr: the file and the tail.
func (l *serverLog) stderr() io.Writer { return stderrWriter{l} }

type stderrWriter struct{ l *serverLog }

func (w stderrWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	w.l.tail = append(w.l.tail, p...)
	if len(w.l.tail) > stderrTail {
		w.l.tail = append([]byte(nil), w.l.tail[len(w.l.tail)-stderrTail:]...)
	}
	w.l.mu.Unlock()
	return w.l.Write(p)
}

// lastStderr returns the last non-empty line the server wrote to stderr.
func (l *serverLog) lastStderr() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(l.tail), []byte("\n"))
	last := strings.TrimSpace(string(lines[len(lines)-1]))
	if len(last) > 300 {
		last = last[:300] + "..."
	}
	return last
}

// where tells the user where to look for details.
func (l *serverLog) where() string {
	if l.path == "" {
		return ""
	}
	return "; see " + l.path
}

func (l *serverLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
