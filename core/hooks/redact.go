package hooks

import (
	"bytes"
	"io"
	"sync"

	"github.com/ollm/ollm/internal/secrets"
)

// secretsOf lists the values that must not appear in what ollm shows or
// logs of h: its extension's sensitive settings (Hook.Secrets), the
// values of secret-looking variables among its settings, its own env (as
// written and expanded) and ollm's environment, the rules core/mcp applies
// to a server's stderr (internal/secrets).
func (e *Engine) secretsOf(h *Hook) []string {
	out := append([]string(nil), h.Secrets...)
	out = append(out, secrets.FromMap(h.Env)...)
	out = append(out, secrets.FromMap(h.Def.Env)...)
	out = append(out, secrets.FromEnv(e.declaredEnv(h, false))...) // after ${VAR}
	return append(out, e.baseSecrets...)
}

// redact cuts h's secrets and any URL password out of text.
func (e *Engine) redact(h *Hook, text string) string {
	if text == "" {
		return text
	}
	return secrets.RedactURLs(secrets.Redact(text, e.secretsOf(h)))
}

// redactVerdict cuts h's secrets out of every text of v that reaches the
// user, a log or the model: the failure detail (it quotes stderr), the
// block reason (exit status 2 takes it from stderr), the system message
// and the notice. Rewrites in Data are left alone: they are what the hook
// asked the operation to use.
func (e *Engine) redactVerdict(h *Hook, v Verdict) Verdict {
	if v.Detail == "" && v.Reason == "" && v.SystemMessage == "" && v.Notice == "" {
		return v
	}
	sec := e.secretsOf(h)
	r := func(s string) string {
		if s == "" {
			return s
		}
		return secrets.RedactURLs(secrets.Redact(s, sec))
	}
	v.Detail, v.Reason, v.SystemMessage, v.Notice = r(v.Detail), r(v.Reason), r(v.SystemMessage), r(v.Notice)
	return v
}

// maxLogLine is how much of a line without a newline a redactingWriter
// holds before it writes it out anyway.
const maxLogLine = 64 << 10

// redactingWriter writes whole lines to w with the secrets cut out, so a
// secret split across two writes is still found. Close writes what is
// left of an unfinished line.
type redactingWriter struct {
	mu      sync.Mutex
	w       io.Writer
	secrets []string
	buf     []byte
}

func newRedactingWriter(w io.Writer, sec []string) *redactingWriter {
	return &redactingWriter{w: w, secrets: sec}
}

func (r *redactingWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if i := bytes.LastIndexByte(r.buf, '\n'); i >= 0 {
		r.emit(r.buf[:i+1])
		r.buf = append(r.buf[:0], r.buf[i+1:]...)
	}
	if len(r.buf) > maxLogLine {
		r.emit(r.buf)
		r.buf = r.buf[:0]
	}
	return len(p), nil
}

func (r *redactingWriter) emit(b []byte) {
	s := secrets.RedactURLs(secrets.Redact(string(b), r.secrets))
	_, _ = io.WriteString(r.w, s)
}

// Close writes the rest of an unfinished line.
func (r *redactingWriter) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.buf) > 0 {
		r.emit(r.buf)
		r.buf = nil
	}
	return nil
}
