package cli

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/tool"
)

// limitCalls lets at most n tool calls run at once (mcp.serve.maxConcurrent);
// the others wait their turn, or end when their request is cancelled.
func limitCalls(n int) server.ToolHandlerMiddleware {
	sem := make(chan struct{}, n)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			defer func() { <-sem }()
			return next(ctx, req)
		}
	}
}

// toolAnnotations are the MCP hints of a tool: its own when it came from
// an MCP server that gave them, else from its kind and risk.
func toolAnnotations(t tool.Tool) mcp.ToolAnnotation {
	kind := t.Kind()
	yes, no := mcp.ToBoolPtr(true), mcp.ToBoolPtr(false)
	a := mcp.ToolAnnotation{Title: toolTitle(t.Name())}
	switch {
	case kind.ReadOnly():
		a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint = yes, no, yes
	case kind == tool.KindThink:
		// memory and todos: the agent's own notes, nothing else changes
		a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint = no, no, no
	case kind == tool.KindOther:
		// unknown: the MCP defaults say the worst
	default: // edit, delete, execute
		a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint = no, mcp.ToBoolPtr(tool.RiskFor(kind) == tool.RiskHigh || kind == tool.KindEdit), no
	}
	// Open world: the web, a command (which may reach anything its sandbox
	// lets it), an unknown tool; the rest stay in the workspace.
	open := kind == tool.KindFetch || kind == tool.KindExecute || kind == tool.KindOther || strings.HasPrefix(t.Name(), "web_")
	a.OpenWorldHint = mcp.ToBoolPtr(open)
	if at, ok := t.(tool.Annotated); ok {
		own := at.Annotations()
		if own.Title != "" {
			a.Title = own.Title
		}
		for _, h := range []struct {
			dst **bool
			src *bool
		}{{&a.ReadOnlyHint, own.ReadOnly}, {&a.DestructiveHint, own.Destructive}, {&a.IdempotentHint, own.Idempotent}, {&a.OpenWorldHint, own.OpenWorld}} {
			if h.src != nil {
				*h.dst = h.src
			}
		}
	}
	return a
}

// toolTitle is a name as a title: "read_file" is "Read file",
// "github:create_issue" "Create issue (github)".
func toolTitle(name string) string {
	server, base, ok := strings.Cut(name, ":")
	if !ok {
		server, base = "", name
	}
	words := strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(base))
	t := strings.Join(words, " ")
	if r := []rune(t); len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
		t = string(r)
	}
	if server != "" {
		t += " (" + server + ")"
	}
	return t
}

// progressEvery is how often a call given a progressToken reports that it
// still runs when it has printed nothing new.
var progressEvery = time.Second

// notifier sends a notification to the client of ctx's request. On stdio
// it writes at once, so that a call's progress never follows its result.
type notifier func(ctx context.Context, method string, params map[string]any)

// progress reports a call's progress to its client when the request
// carries _meta.progressToken: each line the tool prints, and the time it
// has run every progressEvery when it prints nothing.
type progress struct {
	ctx    context.Context
	token  mcp.ProgressToken
	notify notifier
	start  time.Time

	mu   sync.Mutex
	n    int  // notifications sent: the progress value, always increasing
	done bool // the call ended: nothing more is sent
	last time.Time
}

func newProgress(ctx context.Context, req mcp.CallToolRequest, notify notifier) *progress {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil || notify == nil {
		return nil
	}
	now := time.Now()
	p := &progress{ctx: ctx, token: req.Params.Meta.ProgressToken, notify: notify, start: now, last: now}
	go p.tick()
	return p
}

func (p *progress) tick() {
	t := time.NewTicker(progressEvery)
	defer t.Stop()
	for {
		select {
		case <-p.ctx.Done():
			return
		case now := <-t.C:
			p.mu.Lock()
			quiet := now.Sub(p.last) >= progressEvery
			p.mu.Unlock()
			if quiet {
				p.send(fmt.Sprintf("running for %s", time.Since(p.start).Round(time.Second)))
			}
		}
	}
}

// chunk reports streamed output, one notification per non-empty line.
func (p *progress) chunk(c tool.Chunk) {
	if c.Message != "" {
		p.send(c.Message)
	}
	for _, line := range strings.Split(c.Text, "\n") {
		if line = strings.TrimRight(line, "\r"); strings.TrimSpace(line) != "" {
			p.send(line)
		}
	}
}

func (p *progress) send(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || p.ctx.Err() != nil {
		return
	}
	if r := []rune(msg); len(r) > 500 {
		msg = string(r[:500]) + "…"
	}
	p.n++
	p.last = time.Now()
	p.notify(p.ctx, "notifications/progress", map[string]any{"progressToken": p.token, "progress": p.n, "message": msg})
}

// stop ends the reports; it returns once none is being sent, so the
// result goes after the last one.
func (p *progress) stop() {
	p.mu.Lock()
	p.done = true
	p.mu.Unlock()
}

// logEvent sends what a call's gate decided, and a notice or failure
// during it, to the call's client as an MCP log message (at the level it
// set with logging/setLevel).
func logEvent(srv *server.MCPServer, ctx context.Context, e agent.Event) {
	level, text := mcp.LoggingLevelInfo, ""
	switch e.Type {
	case agent.EvToolDecision:
		if e.Tool == nil || e.Tool.Decision == nil {
			return
		}
		d := e.Tool.Decision
		text = fmt.Sprintf("%s: %s", e.Tool.Name, d.Action)
		for _, s := range []string{d.Reason, d.Message} {
			if s != "" {
				text += ": " + s
			}
		}
	case agent.EvNotice:
		level, text = mcp.LoggingLevelNotice, e.Text
	case agent.EvHookFailure:
		if e.Failure == nil {
			return
		}
		level, text = mcp.LoggingLevelWarning, e.Failure.String()
	case agent.EvError:
		level, text = mcp.LoggingLevelError, e.Error
	default:
		return
	}
	_ = srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(level, "ollm", text))
}

// route passes a call's streamed output to its progress and what its gate
// decided to its client's log.
func (a *serveAsker) route(e agent.Event) {
	if e.Tool == nil {
		return
	}
	a.mu.Lock()
	c := a.calls[e.Tool.ID]
	a.mu.Unlock()
	if c == nil {
		return
	}
	if e.Type == agent.EvToolProgress && e.Tool.Chunk != nil && c.progress != nil {
		c.progress.chunk(*e.Tool.Chunk)
	}
	logEvent(a.srv, c.req, e)
}
