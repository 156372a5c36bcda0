package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// recordingProxy stands between ollm and a real streamable HTTP server
// and records every JSON-RPC message POSTed to it, with the body of the
// server's answer.
type recordingProxy struct {
	URL string // the proxy's origin

	mu   sync.Mutex
	msgs []*proxied
}

// proxied is one POSTed message and what the server answered.
type proxied struct {
	Method string
	Params json.RawMessage
	Answer string
}

func newRecordingProxy(t *testing.T, upstream string) *recordingProxy {
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			rp.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m rpcMsg
		json.Unmarshal(body, &m)
		// The message is recorded before it goes on, and the answer as it
		// passes, so the client cannot have read more than is recorded.
		p.mu.Lock()
		rec := &proxied{Method: m.Method, Params: m.Params}
		p.msgs = append(p.msgs, rec)
		p.mu.Unlock()
		rp.ServeHTTP(&teeWriter{ResponseWriter: w, p: p, rec: rec}, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// take returns the messages recorded since the last take.
func (p *recordingProxy) take() []proxied {
	out := p.seen()
	p.mu.Lock()
	p.msgs = p.msgs[len(out):]
	p.mu.Unlock()
	return out
}

// seen returns the messages recorded so far, keeping them.
func (p *recordingProxy) seen() []proxied {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]proxied, len(p.msgs))
	for i, m := range p.msgs {
		out[i] = *m
	}
	return out
}

func methodsOf(msgs []proxied) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Method)
	}
	return strings.Join(out, " ")
}

// teeWriter adds what is written through it to a recorded answer first.
type teeWriter struct {
	http.ResponseWriter
	p   *recordingProxy
	rec *proxied
}

func (w *teeWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	w.rec.Answer += string(b)
	w.p.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

func (w *teeWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
