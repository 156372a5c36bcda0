package hooks

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// LogPath is the log file that receives the stderr of an extension's
// hooks, or of profile hooks when extension is "".
func LogPath(dir, extension string) string {
	if extension == "" {
		return filepath.Join(dir, "hooks.log")
	}
	return filepath.Join(dir, "ext-"+extension+".log")
}

// openLog returns the writer for h's stderr. The file is opened on the
// first write, so a quiet hook costs nothing.
func (e *Engine) openLog(h *Hook, ev Event) (io.Writer, func()) {
	if e.opts.LogDir == "" {
		return nil, func() {}
	}
	w := &lazyLog{
		path:   LogPath(e.opts.LogDir, h.Extension),
		header: fmt.Sprintf("--- %s hook %s event %s\n", e.opts.Now().UTC().Format(time.RFC3339), h.QualifiedName(), ev),
	}
	r := newRedactingWriter(w, e.secretsOf(h))
	return r, func() { _ = r.Close(); w.close() }
}

type lazyLog struct {
	path, header string
	f            *os.File
	err          error
}

func (l *lazyLog) Write(p []byte) (int, error) {
	if l.f == nil && l.err == nil {
		if l.err = os.MkdirAll(filepath.Dir(l.path), 0o700); l.err == nil {
			l.f, l.err = os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		}
		if l.f != nil {
			_, _ = io.WriteString(l.f, l.header)
		}
	}
	if l.err != nil {
		return len(p), nil // a log that cannot be written must not fail the hook
	}
	return l.f.Write(p)
}

func (l *lazyLog) close() {
	if l.f != nil {
		_ = l.f.Close()
	}
}
