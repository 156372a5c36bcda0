package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// httpCancels keeps, over HTTP, the response of a request its client
// cancelled from being sent (MCP: a cancelled request gets no response;
// mcp-go would send "-32603 context canceled"). It notes each POSTed
// request by session and id, marks it when a notifications/cancelled of
// the same session names it, and drops the response from that request's
// own reply: a JSON body becomes an empty 202, an SSE event is left out.
type httpCancels struct {
	mu        sync.Mutex
	inflight  map[string]bool
	cancelled map[string]bool
}

func newHTTPCancels() *httpCancels {
	return &httpCancels{inflight: map[string]bool{}, cancelled: map[string]bool{}}
}

func (h *httpCancels) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get(server.HeaderKeySessionID)
		if r.Method != http.MethodPost || sid == "" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
		if err != nil {
			http.Error(w, "400 bad request: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		var m wireMessage
		if json.Unmarshal(body, &m) != nil || m.Method == "" {
			next.ServeHTTP(w, r)
			return
		}
		switch {
		case hasID(m.ID):
			key := sid + "\x00" + idKey(m.ID)
			h.mu.Lock()
			h.inflight[key] = true
			delete(h.cancelled, key)
			h.mu.Unlock()
			cw := &cancelWriter{ResponseWriter: w, cancelled: func() bool { return h.isCancelled(key) }}
			next.ServeHTTP(cw, r)
			cw.finish()
			h.mu.Lock()
			delete(h.inflight, key)
			delete(h.cancelled, key)
			h.mu.Unlock()
			return
		case m.Method == string(mcp.MethodNotificationCancelled) && hasID(m.Params.RequestID):
			key := sid + "\x00" + idKey(m.Params.RequestID)
			h.mu.Lock()
			if h.inflight[key] {
				h.cancelled[key] = true
			}
			h.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

func (h *httpCancels) isCancelled(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cancelled[key]
}

// cancelWriter holds back the status until the first write, so that a
// reply that is only the dropped response can become an empty 202.
type cancelWriter struct {
	http.ResponseWriter
	cancelled func() bool
	status    int
	started   bool
}

func (c *cancelWriter) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

func (c *cancelWriter) start() {
	if !c.started {
		c.started = true
		if c.status == 0 {
			c.status = http.StatusOK
		}
		c.ResponseWriter.WriteHeader(c.status)
	}
}

func (c *cancelWriter) Write(p []byte) (int, error) {
	if c.cancelled() && isResponse(p) {
		if !c.started {
			c.Header().Del("Content-Type")
			c.status = http.StatusAccepted
		}
		return len(p), nil
	}
	c.start()
	return c.ResponseWriter.Write(p)
}

// finish sends the held status when nothing was written.
func (c *cancelWriter) finish() { c.start() }

func (c *cancelWriter) Flush() {
	if c.started {
		if f, ok := c.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
	}
}

func (c *cancelWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// isResponse reports whether p, a JSON body or one SSE event, is a
// JSON-RPC response (an id, no method).
func isResponse(p []byte) bool {
	data := p
	if i := bytes.Index(p, []byte("data: ")); i >= 0 && bytes.HasPrefix(bytes.TrimSpace(p), []byte("event:")) {
		data = p[i+len("data: "):]
	}
	var m wireMessage
	return json.Unmarshal(bytes.TrimSpace(data), &m) == nil && m.Method == "" && hasID(m.ID)
}
