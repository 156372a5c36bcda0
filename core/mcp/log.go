package mcp

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ollm/ollm/store"
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
	// redact cuts the server's secrets out of what reaches the file, a
	// whole line at a time (pending holds the line not yet ended), so a
	// secret split across two writes is still found.
	redact  func(string) string
	pending []byte
}

// maxPending bounds a line kept for redaction; a longer one is redacted
// and written in pieces.
const maxPending = 64 << 10

// openServerLog opens (appending) <dir>/mcp-<name>.log, 0600 in a 0700
// directory. Every line goes through redact (nil: written as is).
func openServerLog(dir, name string, max int64, redact func(string) string) (*serverLog, error) {
	l := &serverLog{max: max, redact: redact}
	if dir == "" {
		return l, nil
	}
	// The log holds the server's stderr, redacted, and its messages:
	// owner only all the same.
	if err := store.PrivateDir(dir); err != nil {
		return nil, err
	}
	l.path = filepath.Join(dir, "mcp-"+sanitizeName(name)+".log")
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, store.PermPrivate)
	if err != nil {
		return nil, err
	}
	_ = f.Chmod(store.PermPrivate) // a log left 0644 by an earlier version
	l.f = f
	return l, nil
}

// Write appends to the file, redacted a line at a time.
func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil || l.full {
		return len(p), nil
	}
	if l.redact == nil {
		return l.write(p)
	}
	l.pending = append(l.pending, p...)
	cut := bytes.LastIndexByte(l.pending, '\n') + 1
	if cut == 0 {
		if len(l.pending) < maxPending {
			return len(p), nil
		}
		cut = len(l.pending)
	}
	_, err := l.flush(cut)
	return len(p), err
}

// flush writes the first n pending bytes, redacted. l.mu is held.
func (l *serverLog) flush(n int) (int, error) {
	out := l.redact(string(l.pending[:n]))
	l.pending = append(l.pending[:0], l.pending[n:]...)
	return l.write([]byte(out))
}

// write appends to the file until the cap, then notes the cut once. l.mu
// is held.
func (l *serverLog) write(p []byte) (int, error) {
	if l.full {
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

// lastStderr returns the last non-empty line the server wrote to stderr,
// whole: cut it (shorten) only after redacting it, so no secret is cut in
// half where redaction would miss it.
func (l *serverLog) lastStderr() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(l.tail), []byte("\n"))
	return strings.TrimSpace(string(lines[len(lines)-1]))
}

// shorten cuts a quoted line to 300 bytes, at a character boundary.
func shorten(s string) string {
	if len(s) <= 300 {
		return s
	}
	i := 300
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
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
	if len(l.pending) > 0 {
		_, _ = l.flush(len(l.pending))
	}
	err := l.f.Close()
	l.f = nil
	return err
}
