package mcptest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// GetStreamServer is a streamable HTTP MCP server (mcp-go's server
// package, stateful, offering only session-era protocol revisions so a
// client opens the standalone GET stream) that sends its requests to the
// client outside any request of the client's. Its tool ask-later answers
// at once ("asked later") and then, with the call over, sends either an
// elicitation/create or a sampling/createMessage request with a context
// that belongs to no request: mcp-go writes such a request on the
// session's GET stream, never on a POST's. The server records each answer
// the client sends back, and the method of every server request that
// went out on a GET stream.
type GetStreamServer struct {
	URL string

	srv     *server.MCPServer
	ctx     context.Context // ends at the test's end
	mu      sync.Mutex
	changed chan struct{} // closed and replaced when something is recorded
	answers []Answer
	onGet   []string
	opts    GetStreamOptions
	getOpen int // GET streams whose headers went out and that are not over
}

// GetStreamOptions shape a GetStreamServer.
type GetStreamOptions struct {
	// HoldGet delays the answer to each GET (its headers too).
	HoldGet time.Duration
}

// AskNow is the tool that elicits during the call, on the GET stream,
// and answers with what the client said ("answered: decline"); when no
// GET stream is open it drops the request, as the conformance suite's
// TypeScript server does, and answers "dropped: no GET stream was open".
const AskNow = "ask-now"

// Answer is what the client answered to one of the server's requests.
type Answer struct {
	Method  string         // "elicitation/create" or "sampling/createMessage"
	Action  string         // elicitation: accept, decline or cancel
	Content map[string]any // elicitation: the accepted content
	Model   string         // sampling: the model the client names
	Text    string         // sampling: the completion's text
	Err     string         // the request failed: the client's error
}

// The ask-later tool's arguments: kind "elicit" or "sample", and the
// message (the elicitation's message, the sampling's user message).
const (
	AskElicit = "elicit"
	AskSample = "sample"
	// GetStreamSystemPrompt is the system prompt of its sampling requests.
	GetStreamSystemPrompt = "You are the GET stream test server."
)

// StartGetStreamServer runs a GetStreamServer until the test ends; its
// endpoint is URL (…/mcp).
func StartGetStreamServer(t testing.TB) *GetStreamServer {
	return StartGetStreamServerWith(t, GetStreamOptions{})
}

// StartGetStreamServerWith is StartGetStreamServer shaped by o.
func StartGetStreamServerWith(t testing.TB, o GetStreamOptions) *GetStreamServer {
	ctx, cancel := context.WithCancel(context.Background())
	g := &GetStreamServer{changed: make(chan struct{}), ctx: ctx, opts: o}
	g.srv = server.NewMCPServer("getstream", "1", server.WithToolCapabilities(false), server.WithElicitation())
	g.srv.EnableSampling()
	g.srv.AddTool(mcp.NewTool("ask-later", mcp.WithDescription("Answers at once, then asks the client on the GET stream."),
		mcp.WithString("kind", mcp.Required(), mcp.Enum(AskElicit, AskSample)), mcp.WithString("message", mcp.Required())),
		g.askLater)
	g.srv.AddTool(mcp.NewTool(AskNow, mcp.WithDescription("Asks the client on the GET stream during the call.")), g.askNow)
	h := server.NewStreamableHTTPServer(g.srv, server.WithStreamableHTTPProtocolVersions(
		mcp.ProtocolVersion20251125, mcp.ProtocolVersion20250618, mcp.ProtocolVersion20250326),
		server.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			if o.HoldGet > 0 {
				time.Sleep(o.HoldGet)
			}
			rec := &getRecorder{ResponseWriter: w, g: g}
			defer rec.done()
			w = rec
		}
		h.ServeHTTP(w, r)
	}))
	hs := httptest.NewServer(mux)
	g.URL = hs.URL + "/mcp"
	t.Cleanup(func() {
		cancel()
		hs.CloseClientConnections()
		hs.Close()
	})
	return g
}

func (g *GetStreamServer) askLater(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	session := server.ClientSessionFromContext(ctx)
	if session == nil {
		return nil, errors.New("no session")
	}
	kind, msg := req.GetString("kind", ""), req.GetString("message", "")
	go g.ask(session, kind, msg)
	return mcp.NewToolResultText("asked later"), nil
}

func (g *GetStreamServer) askNow(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	session := server.ClientSessionFromContext(ctx)
	if session == nil {
		return nil, errors.New("no session")
	}
	g.mu.Lock()
	open := g.getOpen > 0
	g.mu.Unlock()
	if !open {
		return mcp.NewToolResultText("dropped: no GET stream was open"), nil
	}
	ectx, cancel := context.WithTimeout(g.srv.WithContext(g.ctx, session), time.Minute)
	defer cancel()
	res, err := g.srv.RequestElicitation(ectx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
		Message: "Now, please", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}}})
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText("answered: " + string(res.Action)), nil
}

// ask sends the request outside the call: its context carries the
// session and nothing of the call, so mcp-go queues it for the GET
// stream.
func (g *GetStreamServer) ask(session server.ClientSession, kind, msg string) {
	ctx, cancel := context.WithTimeout(g.srv.WithContext(g.ctx, session), time.Minute)
	defer cancel()
	var a Answer
	switch kind {
	case AskElicit:
		a.Method = string(mcp.MethodElicitationCreate)
		res, err := g.srv.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
			Message: msg,
			RequestedSchema: map[string]any{"type": "object", "required": []any{"name"},
				"properties": map[string]any{"name": map[string]any{"type": "string"}}},
		}})
		if err != nil {
			a.Err = err.Error()
			break
		}
		a.Action, a.Content = string(res.Action), contentMap(res.Content)
	case AskSample:
		a.Method = string(mcp.MethodSamplingCreateMessage)
		res, err := g.srv.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
			Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(msg)}},
			SystemPrompt: GetStreamSystemPrompt,
			MaxTokens:    40,
		}})
		if err != nil {
			a.Err = err.Error()
			break
		}
		a.Model = res.Model
		if tc, ok := res.Content.(mcp.TextContent); ok {
			a.Text = tc.Text
		}
	default:
		a.Err = "unknown kind " + kind
	}
	g.record(func() { g.answers = append(g.answers, a) })
}

func contentMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func (g *GetStreamServer) record(f func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f()
	close(g.changed)
	g.changed = make(chan struct{})
}

// WaitAnswers waits until the client has answered n requests, or ctx
// ends, and returns the answers so far.
func (g *GetStreamServer) WaitAnswers(ctx context.Context, n int) ([]Answer, error) {
	for {
		g.mu.Lock()
		out, ch := append([]Answer(nil), g.answers...), g.changed
		g.mu.Unlock()
		if len(out) >= n {
			return out, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
}

// OnGetStream lists the methods of the server's requests written on a
// GET stream, in order.
func (g *GetStreamServer) OnGetStream() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.onGet...)
}

// getRecorder notes the server's requests a GET stream carries, and
// counts the stream open from its headers on.
type getRecorder struct {
	http.ResponseWriter
	g      *GetStreamServer
	opened bool
	status int
}

func (r *getRecorder) open() {
	if !r.opened && (r.status == 0 || r.status == http.StatusOK) {
		r.opened = true
		r.g.mu.Lock()
		r.g.getOpen++
		r.g.mu.Unlock()
	}
}

func (r *getRecorder) done() {
	if r.opened {
		r.g.mu.Lock()
		r.g.getOpen--
		r.g.mu.Unlock()
	}
}

func (r *getRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
	r.open()
}

func (r *getRecorder) Write(p []byte) (int, error) {
	for _, m := range []mcp.MCPMethod{mcp.MethodElicitationCreate, mcp.MethodSamplingCreateMessage} {
		if strings.Contains(string(p), `"method":"`+string(m)+`"`) {
			r.g.record(func() { r.g.onGet = append(r.g.onGet, string(m)) })
		}
	}
	n, err := r.ResponseWriter.Write(p)
	r.open()
	return n, err
}

func (r *getRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *getRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
