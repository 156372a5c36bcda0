package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/tool"
)

// conn is one live connection to a server.
type conn struct {
	spec    Spec
	cfg     Expanded
	client  *client.Client
	proc    *process       // stdio only
	sandbox string         // what the stdio process runs under, for its status; "" without Options.Sandbox
	auth    *authTransport // HTTP servers with OAuth tokens
	log     *slog.Logger
	logs    *serverLog
	opts    *Options

	ctx    context.Context // lives as long as the connection
	cancel context.CancelFunc

	lostOnce sync.Once
	lost     chan struct{} // closed when the connection is gone
	lostErr  error

	progressMu sync.Mutex
	progress   map[string]func(tool.Chunk)
	seq        atomic.Int64

	onListChanged func()

	// protoKey names the server in the protocol cache; pinned is the
	// handshake revision remembered for it ("" probes with server/discover).
	protoKey  string
	pinned    string
	wire      *wire
	protocols *protocolCache

	// toolKey names the server in the tool cache (toolcache.go); info is
	// what the server called itself in initialize.
	toolKey string
	tools   *toolCache
	info    mcp.Implementation
	// fromCache: the connection's tools came from the tool cache, not
	// from the server (Manager.Relist asks the server then).
	fromCache atomic.Bool
	// startedUp: the server has answered a request after the handshake
	// (its tools/list or, with the tool cache, the first call). Some
	// servers announce tools/list_changed while they start (server-
	// everything registers tools once it knows the client's capabilities:
	// three notifications right after initialized), and a list taken
	// afterwards already holds those changes. listChanges counts the
	// notifications; startupChanges is how many came before the first
	// answer when the list was taken (kept in the cache entry). A
	// notification after the first answer, or more than startupChanges
	// before it, is a change: it drops the cache entry.
	startedUp      atomic.Bool
	listChanges    atomic.Int64
	startupChanges atomic.Int64
}

// dial starts the transport; it does not initialize. A failure here
// releases everything dial acquired.
func dial(spec Spec, opts *Options, logs *serverLog, auth *authTransport, protocols *protocolCache, tools *toolCache, onListChanged func()) (*conn, error) {
	cfg := ExpandServer(spec.Name, spec.Config, opts.Environ, spec.SettingsEnv, spec.vars(opts))
	key := protocolKey(spec, cfg)
	c := &conn{
		protoKey: key, pinned: protocols.legacy(key), protocols: protocols, tools: tools,
		spec: spec, cfg: cfg, opts: opts, logs: logs, auth: auth,
		log:      slog.New(slog.NewTextHandler(logs, nil)).With("server", spec.Name),
		lost:     make(chan struct{}),
		progress: map[string]func(tool.Chunk){},

		onListChanged: onListChanged,
	}
	for _, w := range cfg.Warnings {
		c.log.Warn(w)
	}
	if tools != nil {
		c.toolKey = toolCacheKey(spec, cfg, c.offered())
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	tr, err := c.transport()
	if err != nil {
		c.cancel()
		return nil, err
	}
	tr = newWire(tr, c.log)
	c.wire = wireOf(tr)
	c.client = client.NewClient(tr, c.clientOptions()...)
	c.client.OnNotification(c.notify)
	c.client.OnConnectionLost(func(err error) { c.markLost(fmt.Errorf("connection lost: %w", err)) })
	if err := c.client.Start(c.ctx); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (s Spec) vars(opts *Options) map[string]string {
	// ${/} and ${pathSeparator} are Gemini CLI's, for imported extensions.
	v := map[string]string{"/": string(filepath.Separator), "pathSeparator": string(filepath.Separator)}
	if s.Dir != "" {
		v["extensionPath"] = s.Dir
	}
	if len(opts.Roots) > 0 {
		v["workspacePath"] = opts.Roots[0]
		if d := sandbox.ExtensionData(opts.Roots[0], s.Extension); s.Extension != "" && d != "" {
			v["extensionDataPath"] = d
		}
	}
	return v
}

func (c *conn) transport() (transport.Interface, error) {
	switch c.spec.Transport() {
	case TransportStdio:
		return c.stdioTransport()
	case TransportSSE:
		return transport.NewSSE(c.cfg.URL,
			transport.WithSSELogger(c.log),
			transport.WithHeaders(c.cfg.Headers),
			transport.WithHTTPClient(c.httpClient()))
	case TransportHTTP:
		return transport.NewStreamableHTTP(c.cfg.URL,
			transport.WithHTTPLogger(c.log),
			transport.WithHTTPHeaders(c.cfg.Headers),
			transport.WithHTTPBasicClient(c.httpClient()))
	default:
		return nil, fmt.Errorf("unknown transport %q; use stdio, sse or http", c.spec.Config.Transport)
	}
}

// httpClient is Options.HTTPClient with the stored OAuth token on its
// requests and the message size cap on its responses.
func (c *conn) httpClient() *http.Client {
	cl := *c.opts.httpClient()
	base := cl.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	if c.auth != nil {
		base = c.auth
	}
	cl.Transport = &capTransport{base: base, limit: c.opts.maxMessage(), hooks: lineHooks{
		oversized: func(info oversized) {
			c.log.Warn("message over the size limit replaced", "bytes", info.Bytes, "limit", c.opts.maxMessage())
		},
	}}
	return &cl
}

// stdioTransport starts the server process and puts the line filter
// between its stdout and mcp-go, so oversized and malformed messages are
// handled before they reach the client.
func (c *conn) stdioTransport() (transport.Interface, error) {
	if c.cfg.Command == "" {
		return nil, errors.New("no command given; set the server's command")
	}
	dir := c.spec.Config.Cwd
	if dir == "" {
		dir = c.spec.Dir
	}
	p, err := startProcess(c.cfg.Command, c.cfg.Args, c.cfg.Env, dir, c.logs.stderr(), c.confine)
	if err != nil {
		return nil, err
	}
	c.proc = p
	pr, pw := io.Pipe()
	filtered := make(chan error, 1)
	go func() {
		filtered <- filterLines(p.stdout, pw, c.opts.maxMessage(), lineHooks{
			stray: func(line []byte) {
				c.log.Warn("stdout line that is not JSON-RPC skipped", "line", string(head(line, 500)))
			},
			oversized: func(info oversized) {
				c.log.Warn("message over the size limit replaced", "bytes", info.Bytes, "limit", c.opts.maxMessage())
			},
		})
	}()
	go c.watch(p, pw, filtered)
	tr := transport.NewIO(pr, p.stdin, nil)
	transport.WithCommandLogger(c.log)(tr) // mcp-go's own messages go to the server log too
	return tr, nil
}

// Grace periods of watch: how long a process that closed its stdout has to
// exit, and how long an exited process's output has to drain (a child it
// left behind may hold the pipe open).
const (
	exitAfterEOF = 5 * time.Second
	drainAfter   = 2 * time.Second
)

// watch waits for the end of a stdio server, from either side (stdout
// ends, the process exits) and records why before closing the stream
// mcp-go reads. That order is the point: a request failing with "transport
// closed" always finds the exit status already recorded, never a race
// between the two.
func (c *conn) watch(p *process, pw *io.PipeWriter, filtered <-chan error) {
	var ferr error
	select {
	case ferr = <-filtered:
		if ferr == nil || !isMalformed(ferr) {
			p.waitFor(exitAfterEOF)
		}
	case <-p.done:
		select {
		case ferr = <-filtered:
		case <-time.After(drainAfter):
		}
	}
	if ferr != nil && !errors.Is(ferr, os.ErrClosed) {
		c.log.Error("closing the connection", "err", ferr)
	}
	c.markLost(stdioLostCause(ferr, p))
	pw.CloseWithError(ferr)
}

func isMalformed(err error) bool {
	var m *errMalformed
	return errors.As(err, &m)
}

// stdioLostCause says why a stdio connection ended: malformed output,
// else the process's exit, else the stdout read error, else that the
// server closed its stdout while still running.
func stdioLostCause(ferr error, p *process) error {
	switch {
	case isMalformed(ferr):
		return ferr
	case p.exited():
		return fmt.Errorf("process %s", p.exitDescription())
	case ferr != nil:
		return fmt.Errorf("reading its stdout: %w", ferr)
	default:
		return errors.New("server closed its stdout but kept running")
	}
}

func (c *conn) clientOptions() []client.ClientOption {
	var opts []client.ClientOption
	if c.answersRequests() {
		opts = append(opts,
			client.WithRootsHandler(rootsHandler{roots: c.roots()}),
			client.WithElicitationHandler(elicitHandler{server: c.spec.Name, elicit: c.opts.Elicit}))
	}
	if c.opts.Sample != nil && c.answersRequests() {
		opts = append(opts, client.WithSamplingHandler(sampleHandler{server: c.spec.Name, sample: c.opts.Sample}))
	}
	switch {
	case c.pinned != "":
		opts = append(opts, client.WithProtocolVersion(c.pinned))
	case c.opts.LegacyHandshake:
		opts = append(opts, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	}
	return opts
}

// initialize performs the MCP handshake.
func (c *conn) initialize(ctx context.Context) error {
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "ollm", Version: c.opts.clientVersion()}
	if c.answersRequests() {
		// A server's roots are fixed for the Manager's life, so ollm never
		// sends notifications/roots/list_changed and does not declare it.
		req.Params.Capabilities.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{}
		req.Params.Capabilities.Elicitation = &mcp.ElicitationCapability{}
		if c.opts.Sample != nil {
			req.Params.Capabilities.Sampling = &mcp.SamplingCapability{}
		}
	}
	res, err := c.client.Initialize(ctx, req)
	if err == nil && res != nil {
		c.info = res.ServerInfo
	}
	return err
}

// offered names the capabilities initialize offers the server, for the
// tool cache's key.
func (c *conn) offered() string {
	var caps []string
	if c.answersRequests() {
		caps = append(caps, "roots", "elicitation")
		if c.opts.Sample != nil {
			caps = append(caps, "sampling")
		}
	}
	return strings.Join(caps, ",")
}

// protocol is the revision the connection speaks, "" before the handshake.
func (c *conn) protocol() string { return c.client.ProtocolVersion() }

// answersRequests reports whether the transport can answer requests from
// the server (roots, elicitation, sampling). mcp-go's SSE transport cannot,
// so over SSE those capabilities are not offered: a server would otherwise
// wait forever for an answer.
func (c *conn) answersRequests() bool { return c.spec.Transport() != TransportSSE }

// listTools fetches every page of tools/list.
func (c *conn) listTools(ctx context.Context) ([]mcp.Tool, error) {
	if c.client.GetServerCapabilities().Tools == nil {
		return nil, nil
	}
	var all []mcp.Tool
	seen := map[mcp.Cursor]bool{}
	req := mcp.ListToolsRequest{}
	for {
		page, err := c.client.ListToolsByPage(ctx, req)
		if err != nil {
			return nil, err
		}
		if c.wire != nil {
			c.wire.rawSchemas(page.Tools)
		}
		all = append(all, page.Tools...)
		if page.NextCursor == "" {
			return all, nil
		}
		if seen[page.NextCursor] {
			return nil, fmt.Errorf("tools/list repeated the cursor %q", page.NextCursor)
		}
		seen[page.NextCursor] = true
		req.Params.Cursor = page.NextCursor
	}
}

// notify handles notifications: progress goes to the call that asked for
// it, list changes trigger a refresh, log messages go to the log file.
func (c *conn) notify(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationProgress):
		c.progressNotification(n.Params.AdditionalFields)
	case string(mcp.MethodNotificationToolsListChanged):
		n := c.listChanges.Add(1)
		if c.toolKey != "" && (c.startedUp.Load() || c.fromCache.Load() && n > c.startupChanges.Load()) {
			if err := c.tools.forget(c.toolKey); err != nil {
				c.log.Warn("tool cache entry not removed after tools/list_changed", "err", err)
			}
		}
		if c.onListChanged != nil {
			c.onListChanged()
		}
	case string(mcp.MethodNotificationMessage):
		logServerMessage(c.log, n.Params.AdditionalFields)
		if c.opts.OnLog != nil {
			if level, text, ok := shownLog(n.Params.AdditionalFields); ok {
				c.opts.OnLog(c.spec.Name, level, text)
			}
		}
	default:
		c.log.Debug("notification", "method", n.Method)
	}
}

func (c *conn) progressNotification(fields map[string]any) {
	token := fmt.Sprint(fields["progressToken"])
	c.progressMu.Lock()
	out := c.progress[token]
	c.progressMu.Unlock()
	if out == nil {
		return
	}
	ch := tool.Chunk{}
	ch.Progress, _ = fields["progress"].(float64)
	ch.Total, _ = fields["total"].(float64)
	ch.Message, _ = fields["message"].(string)
	out(ch)
}

// shownLog is a notifications/message the user sees: warning or above.
// The text is data when it is a string, else data as JSON, after the
// logger's name.
func shownLog(fields map[string]any) (level, text string, ok bool) {
	level, _ = fields["level"].(string)
	switch level {
	case "warning", "error", "critical", "alert", "emergency":
	default:
		return "", "", false
	}
	text, isStr := fields["data"].(string)
	if !isStr {
		b, _ := json.Marshal(fields["data"])
		text = string(b)
	}
	if l, _ := fields["logger"].(string); l != "" {
		text = l + ": " + text
	}
	return level, text, true
}

// logServerMessage writes a notifications/message to the server's log.
func logServerMessage(log *slog.Logger, fields map[string]any) {
	level := slog.LevelInfo
	switch fields["level"] {
	case "debug":
		level = slog.LevelDebug
	case "notice", "info":
	case "warning":
		level = slog.LevelWarn
	default:
		level = slog.LevelError
	}
	data, _ := json.Marshal(fields["data"])
	log.Log(context.Background(), level, "server log", "logger", fields["logger"], "level", fields["level"], "data", string(data))
}

// callTool calls a tool. out, when set, receives progress notifications.
func (c *conn) callTool(ctx context.Context, name string, args json.RawMessage, out func(tool.Chunk)) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	if len(args) > 0 && string(args) != "null" {
		req.Params.Arguments = args
	}
	if out != nil {
		token := fmt.Sprintf("ollm-%d", c.seq.Add(1))
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
		c.progressMu.Lock()
		c.progress[token] = out
		c.progressMu.Unlock()
		defer func() {
			c.progressMu.Lock()
			delete(c.progress, token)
			c.progressMu.Unlock()
		}()
	}
	return c.client.CallTool(ctx, req)
}

// markLost records why the connection ended; the first reason wins.
func (c *conn) markLost(err error) {
	c.lostOnce.Do(func() {
		c.lostErr = err
		close(c.lost)
	})
}

// lostReason is why the connection ended, or nil while it is up.
func (c *conn) lostReason() error {
	select {
	case <-c.lost:
		return c.lostErr
	default:
		return nil
	}
}

// causeOf returns why the connection was lost when err says the
// transport is gone. For stdio, watch records the reason before it closes
// the stream mcp-go reads, so "transport closed" finds it at once; a write
// that failed because the process is gone (broken pipe) can come first,
// so wait for the reason then (bounded: watch's own graces).
func (c *conn) causeOf(err error) error {
	if transportGone(err) {
		select {
		case <-c.lost:
		case <-time.After(exitAfterEOF + drainAfter):
		}
	}
	return c.lostReason()
}

// transportGone reports whether err means the other end went away.
func transportGone(err error) bool {
	return errors.Is(err, transport.ErrTransportClosed) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe)
}

// close shuts the connection down; for stdio it stops the process.
func (c *conn) close() {
	c.markLost(errClosed)
	if c.client != nil {
		_ = c.client.Close()
	}
	if c.proc != nil {
		c.stopProcess()
	}
	c.cancel()
}

// stopProcess stops a stdio server: stdin closed, the grace, SIGTERM. A
// server that did not exit within the grace after its stdin closed is
// remembered (in the protocol cache) as one that ignores EOF, and the next
// time gets SIGTERM right after its stdin closes: waiting for an exit
// that never comes only holds ollm up. One that exits on EOF is
// remembered too, and always gets its grace.
func (c *conn) stopProcess() {
	grace := c.opts.stopGrace()
	known, ignores := c.protocols.ignoresEOF(c.protoKey)
	if known && ignores {
		grace = 0
	}
	// A server stopped before it finished the handshake (ollm quits while
	// it starts, or it timed out) has no session to save: SIGTERM at once.
	// Waiting out the grace here held up every exit behind servers slow to
	// start. It says nothing about how it treats EOF.
	handshaken := c.client != nil && c.protocol() != ""
	if !handshaken {
		grace = 0
	}
	gone := c.proc.exited() // a crash says nothing about EOF
	exited := c.proc.stop(grace)
	if grace > 0 && !gone {
		c.protocols.rememberEOF(c.protoKey, c.spec.Name, !exited)
	}
}

var errClosed = errors.New("closed by ollm")

// httpClient is the client HTTP transports use.
func (o *Options) httpClient() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return http.DefaultClient
}
