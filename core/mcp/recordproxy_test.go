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
	msgs []proxied
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
		tw := &teeWriter{ResponseWriter: w}
		rp.ServeHTTP(tw, r)
		p.mu.Lock()
		p.msgs = append(p.msgs, proxied{Method: m.Method, Params: m.Params, Answer: tw.buf.String()})
		p.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// take returns the messages recorded since the last take.
func (p *recordingProxy) take() []proxied {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.msgs
	p.msgs = nil
	return out
}

// seen returns the messages recorded so far, keeping them.
func (p *recordingProxy) seen() []proxied {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]proxied(nil), p.msgs...)
}

func methodsOf(msgs []proxied) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Method)
	}
	return strings.Join(out, " ")
}

// teeWriter keeps a copy of what is written through it.
type teeWriter struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (w *teeWriter) Write(b []byte) (int, error) {
	w.buf.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *teeWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
