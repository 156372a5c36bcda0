package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The standalone GET stream of streamable HTTP (2025-03-26 to 2025-11-25):
// the one way a server can send requests and notifications that belong to
// no request of ours (roots/list, elicitation outside a call, resource and
// list-change notifications, log messages). mcp-go has it
// (WithContinuousListening), but turning that on makes the transport
// claim it "requires the legacy protocol", so the client would never try
// 2026-07-28, and its listener reconnects after a fixed second without
// Last-Event-ID. ollm opens the stream itself once the handshake settled
// on a revision that has it: it resumes with Last-Event-ID after the
// stream ends, waits what the server's retry field asks, and hands what
// arrives to the handlers mcp-go's client installed (see wire), so a
// request on the stream is answered exactly like one on stdio.

// Reconnection delays of the GET stream: the default when the server sent
// no retry field, the floor for one it sent, and the ceiling of the
// backoff while the stream cannot be opened at all.
const (
	getRetryDefault = time.Second
	getRetryMin     = 10 * time.Millisecond
	getRetryMax     = 30 * time.Second
)

// sseEvent is one server-sent event.
type sseEvent struct {
	ID, Event, Data string
	hasID           bool
}

// sseReader reads server-sent events (the WHATWG event stream format).
type sseReader struct {
	r *bufio.Reader
	// retry is the last retry field, 0 when none came.
	retry time.Duration
}

// next returns the next event; io.EOF at the end of the stream. An event
// without data (a priming event that only sets the id) is returned too.
func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var data []string
	seen := false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
			return ev, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if err != nil {
				return ev, err
			}
			if !seen {
				continue
			}
			ev.Data = strings.Join(data, "\n")
			return ev, nil
		}
		if strings.HasPrefix(line, ":") { // a comment (keep-alive)
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		seen = true
		switch field {
		case "id":
			if !strings.Contains(value, "\x00") {
				ev.ID, ev.hasID = value, true
			}
		case "event":
			ev.Event = value
		case "data":
			data = append(data, value)
		case "retry":
			if ms, err := strconv.Atoi(value); err == nil && ms >= 0 {
				s.retry = time.Duration(ms) * time.Millisecond
			}
		}
		if err != nil {
			ev.Data = strings.Join(data, "\n")
			return ev, err
		}
	}
}

// getStream is the state of one connection's GET stream.
type getStream struct {
	c      *conn
	client *http.Client
	// lastID is the id of the last event received, sent as Last-Event-ID
	// when the stream is opened again.
	lastID string
	retry  time.Duration // what the server's retry field asked, 0 for none
	ready  chan<- struct{}
}

// signal closes ready, once.
func (g *getStream) signal() {
	if g.ready != nil {
		close(g.ready)
		g.ready = nil
	}
}

// hasGetStream reports whether the connection has a standalone GET stream
// to listen on: streamable HTTP, on a revision before 2026-07-28 (which
// replaced it with subscriptions/listen).
func (c *conn) hasGetStream() bool {
	return c.spec.Transport() == TransportHTTP && c.protocol() != "" && !mcp.IsModernProtocol(c.protocol())
}

// listen keeps the GET stream open while the connection lives. It stops
// when the server says it offers none (405) or no longer knows the
// session (404), and on a refusal that another attempt would not change.
// ready, when not nil, is closed once the first attempt has its answer:
// the stream is open (the server can send on it) or it failed.
func (c *conn) listen(ready chan<- struct{}) {
	g := &getStream{c: c, client: c.httpClient(), ready: ready}
	backoff := time.Duration(0)
	for c.ctx.Err() == nil {
		opened, err := g.once()
		g.signal()
		if c.ctx.Err() != nil {
			return
		}
		var stop *stopListening
		if errors.As(err, &stop) {
			c.log.Info("GET stream: not listening for server messages", "why", stop.why)
			return
		}
		delay := getRetryDefault
		if g.retry > 0 {
			delay = max(g.retry, getRetryMin)
		}
		switch {
		case opened:
			backoff = 0
		case backoff == 0:
			backoff = delay
		default:
			backoff = min(2*backoff, getRetryMax)
			delay = backoff
		}
		c.log.Debug("GET stream ended; opening it again", "err", err, "in", delay, "lastEventId", g.lastID)
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-c.ctx.Done():
			t.Stop()
			return
		}
	}
}

// stopListening is a refusal that ends listen.
type stopListening struct{ why string }

func (s *stopListening) Error() string { return s.why }

// once opens the stream and reads it until it ends.
func (g *getStream) once() (opened bool, err error) {
	c := g.c
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.cfg.URL, nil)
	if err != nil {
		return false, &stopListening{err.Error()}
	}
	g.headers(req.Header)
	req.Header.Set("Accept", "text/event-stream")
	if g.lastID != "" {
		req.Header.Set("Last-Event-ID", g.lastID)
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusMethodNotAllowed:
		return false, &stopListening{"the server offers no GET stream (HTTP 405)"}
	case resp.StatusCode == http.StatusNotFound:
		return false, &stopListening{"the server no longer knows the session (HTTP 404)"}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return false, &stopListening{fmt.Sprintf("the server refused the stream (HTTP %d)", resp.StatusCode)}
	case resp.StatusCode != http.StatusOK:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return false, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body))
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return false, &stopListening{fmt.Sprintf("the GET stream answered %q, not text/event-stream", resp.Header.Get("Content-Type"))}
	}
	g.signal() // the server has the stream now and can send on it
	r := &sseReader{r: bufio.NewReaderSize(resp.Body, 64<<10)}
	for {
		ev, err := r.next()
		if r.retry > 0 {
			g.retry = r.retry
		}
		if ev.hasID {
			g.lastID = ev.ID
		}
		if ev.Data != "" && (ev.Event == "" || ev.Event == "message") {
			g.dispatch([]byte(ev.Data))
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return true, err
		}
	}
}

// headers are those of every request of the session: the configured
// headers, the session and the negotiated protocol revision.
func (g *getStream) headers(h http.Header) {
	for k, v := range g.c.cfg.Headers {
		h.Set(k, v)
	}
	if id := g.c.wire.GetSessionId(); id != "" {
		h.Set(transport.HeaderKeySessionID, id)
	}
	if v := g.c.protocol(); v != "" {
		h.Set(transport.HeaderKeyProtocolVersion, v)
	}
}

// dispatch hands one message to mcp-go's client: a request to the request
// handler (its answer is POSTed back), a notification to the notification
// handler. A response has no place on this stream and is dropped.
func (g *getStream) dispatch(data []byte) {
	var msg struct {
		ID     *mcp.RequestId  `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		g.c.log.Warn("GET stream: message that is not JSON-RPC skipped", "err", err, "data", string(head(data, 300)))
		return
	}
	requests, notify := g.c.wire.handlers()
	switch {
	case msg.Method != "" && msg.ID != nil && !msg.ID.IsNil():
		req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: *msg.ID, Method: msg.Method}
		if len(msg.Params) > 0 {
			req.Params = msg.Params
		}
		go g.answer(requests, req)
	case msg.Method != "":
		var n mcp.JSONRPCNotification
		if err := json.Unmarshal(data, &n); err != nil {
			g.c.log.Warn("GET stream: bad notification skipped", "err", err)
			return
		}
		if notify != nil {
			notify(n)
		}
	default:
		g.c.log.Warn("GET stream: a response on the standalone stream skipped", "data", string(head(data, 300)))
	}
}

// answer runs a server request through mcp-go's handler and POSTs the
// answer, an error answer when the handler fails.
func (g *getStream) answer(handler transport.RequestHandler, req transport.JSONRPCRequest) {
	c := g.c
	var resp *transport.JSONRPCResponse
	var err error
	if handler == nil {
		err = fmt.Errorf("no handler for %s", req.Method)
	} else {
		resp, err = handler(c.ctx, req)
	}
	if err != nil {
		c.log.Warn("GET stream: server request failed", "method", req.Method, "err", err)
		code := mcp.INTERNAL_ERROR
		if handler == nil {
			code = mcp.METHOD_NOT_FOUND
		}
		resp = transport.NewJSONRPCErrorResponse(req.ID, code, err.Error(), nil)
	}
	if resp == nil {
		return
	}
	body, err := json.Marshal(resp)
	if err != nil {
		c.log.Error("GET stream: encoding an answer", "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.connTimeout())
	defer cancel()
	post, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return
	}
	g.headers(post.Header)
	post.Header.Set("Content-Type", "application/json")
	post.Header.Set("Accept", "application/json, text/event-stream")
	r, err := g.client.Do(post)
	if err != nil {
		c.log.Warn("GET stream: sending the answer failed", "method", req.Method, "err", err)
		return
	}
	defer r.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<16))
	if r.StatusCode != http.StatusOK && r.StatusCode != http.StatusAccepted {
		c.log.Warn("GET stream: the server refused the answer", "method", req.Method, "status", r.StatusCode)
	}
}
