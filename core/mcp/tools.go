package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/core/tool"
)

// toolDef is one server tool after filtering and schema conversion.
type toolDef struct {
	key         ToolKey
	description string
	schema      *tool.Schema // what the model is offered
	// raw is the inputSchema as the server wrote it: calls are checked
	// against it (every keyword of its draft), and `mcp tools --json`
	// and `mcp serve` show it.
	raw         json.RawMessage
	annotations tool.Annotations
	kind        tool.Kind
	risk        tool.Risk
	// validator is compiled at the first call (validatorFor): compiling
	// every tool's schema at connect cost ~1 ms of CPU per tool (plus
	// ~9 ms for the compiler's meta-schemas once per process), which
	// `mcp list` and a session's start paid for tools never called.
	validatorOnce sync.Once
	validator     *tool.Validator
	validatorErr  error
	// task: the tool must be called as a task (execution.taskSupport
	// "required"): created, polled, its result fetched (tasks.go).
	task bool
	// early: the definition comes from the tool cache, offered while the
	// server connects; a call is checked against the server's own list.
	early bool
}

// loadTools lists a server's tools, records the list in the tool cache
// and converts it.
func (m *Manager) loadTools(ctx context.Context, s *server, c *conn) ([]*toolDef, error) {
	list, err := c.listTools(ctx)
	if err != nil {
		return nil, err
	}
	if !c.startedUp.Swap(true) {
		c.startupChanges.Store(c.listChanges.Load())
	}
	c.fromCache.Store(false)
	m.record(c, list)
	return m.convertTools(s, c, list), nil
}

// toolsAtConnect is a newly connected server's tools: from the tool cache
// when the Manager may use it and the entry is for the server that
// answered initialize, else from tools/list.
func (m *Manager) toolsAtConnect(ctx context.Context, s *server, c *conn, pre *prefetched) ([]*toolDef, error) {
	if e, ok := m.cachedTools(c, pre); ok {
		c.startupChanges.Store(e.StartupChanges) // before fromCache: notify compares with it
		c.fromCache.Store(true)
		c.log.Info("tools from the tool cache; tools/list not sent", "file", c.tools.path(c.toolKey), "tools", len(e.Tools))
		m.setToolWarnings(s, c, pre.warnings)
		return pre.defs, nil
	}
	return m.loadTools(ctx, s, c)
}

// prefetched is a tool cache entry read and converted while the server
// starts (a node server takes hundreds of milliseconds; reading and
// converting its entry, a few).
type prefetched struct {
	done     chan struct{}
	entry    *toolEntry
	err      error
	defs     []*toolDef
	warnings []string
}

// prefetch reads and converts c's tool cache entry on its own goroutine
// when the Manager may use the cache; nil otherwise.
func (m *Manager) prefetch(s *server, c *conn) *prefetched {
	if !m.opts.UseToolCache || c.toolKey == "" {
		return nil
	}
	p := &prefetched{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.entry, p.err = c.tools.load(c.toolKey)
		if p.err == nil && p.entry != nil {
			p.defs, p.warnings = m.convert(s, c, p.entry.Tools)
		}
	}()
	return p
}

// cachedTools returns the tool cache's entry for c (read by prefetch) when
// the entry matches the server's name, version and protocol revision. A
// file that cannot be used is named in the server's log.
func (m *Manager) cachedTools(c *conn, pre *prefetched) (*toolEntry, bool) {
	if pre == nil {
		return nil, false
	}
	<-pre.done
	if pre.err != nil {
		c.log.Warn(pre.err.Error())
		return nil, false
	}
	e := pre.entry
	if e == nil || c.client.GetServerCapabilities().Tools == nil {
		return nil, false
	}
	if e.ServerName != c.info.Name || e.ServerVersion != c.info.Version || e.Protocol != c.protocol() {
		c.log.Info("tool cache entry is for another server version; listing", "cached", e.ServerName+" "+e.ServerVersion+" "+e.Protocol,
			"server", c.info.Name+" "+c.info.Version+" "+c.protocol())
		return nil, false
	}
	return e, true
}

// record writes a server's list to the tool cache. A server that gave no
// version is not recorded: nothing would tell its next version apart.
func (m *Manager) record(c *conn, list []mcp.Tool) {
	if c.toolKey == "" || c.info.Version == "" {
		return
	}
	e := &toolEntry{ServerName: c.info.Name, ServerVersion: c.info.Version, Protocol: c.protocol(),
		StartupChanges: c.startupChanges.Load(), Tools: list}
	if e.Tools == nil {
		e.Tools = []mcp.Tool{}
	}
	if err := c.tools.store(c.toolKey, e); err != nil {
		c.log.Warn("tool cache not written", "err", err)
	}
}

// Relist asks a server whose tools came from the tool cache for its
// tools, replaces them with its answer (correcting the cache) and reports
// true. For a server whose tools are already its own answer, or that
// cannot answer, it does nothing and reports false. ollm mcp call uses it
// when the cached list lacks the tool, refuses the arguments, or the call
// failed: the cache may be out of date.
func (m *Manager) Relist(ctx context.Context, server string) bool {
	m.mu.Lock()
	s, ok := m.servers[server]
	var c *conn
	if ok {
		c = s.conn
	}
	m.mu.Unlock()
	if c == nil || !c.fromCache.Swap(false) {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.connTimeout())
	defer cancel()
	defs, err := m.loadTools(ctx, s, c)
	if err != nil {
		c.log.Warn("tools/list to check the tool cache failed", "err", err)
		return false
	}
	m.mu.Lock()
	current := s.conn == c
	if current {
		s.defs = defs
		m.toolsValid = false
	}
	m.mu.Unlock()
	if current {
		m.emit(s)
	}
	return current
}

// convertTools converts a server's list. A tool whose schema is invalid
// is skipped with a warning in the log and the status.
func (m *Manager) convertTools(s *server, c *conn, list []mcp.Tool) []*toolDef {
	defs, warnings := m.convert(s, c, list)
	m.setToolWarnings(s, c, warnings)
	return defs
}

// convert converts a server's list: its tools and the warnings for the
// tools it skipped.
func (m *Manager) convert(s *server, c *conn, list []mcp.Tool) ([]*toolDef, []string) {
	var defs []*toolDef
	var warnings []string
	for _, t := range list {
		if !toolAllowed(s.spec.Config, t.Name) {
			continue
		}
		def, warns, err := convertTool(s.spec.Name, t)
		for _, w := range warns {
			c.log.Warn("schema simplified", "tool", t.Name, "detail", w)
		}
		if err != nil {
			msg := fmt.Sprintf("tool %q skipped: invalid inputSchema: %v", t.Name, err)
			c.log.Warn(msg)
			warnings = append(warnings, msg)
			continue
		}
		defs = append(defs, def)
	}
	return defs, warnings
}

// setToolWarnings puts the warnings of a server's tools and its sandbox
// into its status.
func (m *Manager) setToolWarnings(s *server, c *conn, warnings []string) {
	m.mu.Lock()
	s.status.Warnings = append(c.cfg.Warnings[:len(c.cfg.Warnings):len(c.cfg.Warnings)], warnings...)
	s.status.Sandbox = c.sandbox
	m.mu.Unlock()
}

// convertTool converts one MCP tool definition.
func convertTool(server string, t mcp.Tool) (*toolDef, []string, error) {
	raw := t.RawInputSchema
	if raw == nil {
		var err error
		if raw, err = json.Marshal(t.InputSchema); err != nil {
			return nil, nil, err
		}
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, nil, err
	}
	sch, warns, err := ConvertSchema(root)
	if err != nil {
		return nil, warns, err
	}
	key := ToolKey{Server: server, Tool: t.Name}
	ann := annotations(server, t)
	kind, risk := Classify(ann)
	return &toolDef{
		key: key, description: t.Description, schema: sch, raw: raw,
		annotations: ann, kind: kind, risk: risk,
		task: t.Execution != nil && t.Execution.TaskSupport == mcp.TaskSupportRequired,
	}, warns, nil
}

func annotations(server string, t mcp.Tool) tool.Annotations {
	a := tool.Annotations{
		Title:       t.Annotations.Title,
		ReadOnly:    t.Annotations.ReadOnlyHint,
		Destructive: t.Annotations.DestructiveHint,
		Idempotent:  t.Annotations.IdempotentHint,
		OpenWorld:   t.Annotations.OpenWorldHint,
		Server:      server,
	}
	if t.Title != "" {
		a.Title = t.Title
	}
	return a
}

// Classify derives a tool's kind and risk from its MCP hints. The MCP
// defaults apply when a hint is missing: a tool is not read-only, and a
// tool that is not read-only may be destructive.
func Classify(a tool.Annotations) (tool.Kind, tool.Risk) {
	switch {
	case a.ReadOnly != nil && *a.ReadOnly:
		return tool.KindRead, tool.RiskLow
	case a.Destructive != nil && !*a.Destructive:
		return tool.KindOther, tool.RiskMedium
	default:
		return tool.KindOther, tool.RiskHigh
	}
}

// Tools returns every ready server's tools under their model-facing names.
func (m *Manager) Tools() []tool.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.toolsValid {
		return append([]tool.Tool(nil), m.tools...)
	}
	var defs []*toolDef
	var keys []ToolKey
	for _, name := range m.order {
		s := m.servers[name]
		list := s.defs
		if s.offersEarlyLocked() {
			list = s.early
		}
		for _, d := range list {
			defs = append(defs, d)
			keys = append(keys, d.key)
		}
	}
	names := AssignNames(keys, m.opts.Reserved)
	m.tools = make([]tool.Tool, 0, len(defs))
	for _, d := range defs {
		n, _ := names.Name(d.key)
		m.tools = append(m.tools, &mcpTool{m: m, def: d, name: n})
		if d.early {
			m.rememberEarly(n, d.key)
		}
	}
	m.toolsValid = true
	return append([]tool.Tool(nil), m.tools...)
}

// Lookup finds a tool by its model-facing name or as "server:tool".
func (m *Manager) Lookup(name string) (tool.Tool, bool) {
	for _, t := range m.Tools() {
		mt := t.(*mcpTool)
		if mt.name == name || mt.def.key.String() == name {
			return t, true
		}
	}
	return m.lookupEarly(name)
}

// mcpTool is an MCP tool as a tool.Tool.
type mcpTool struct {
	m    *Manager
	def  *toolDef
	name string
}

var (
	_ tool.Tool      = (*mcpTool)(nil)
	_ tool.Annotated = (*mcpTool)(nil)
)

func (t *mcpTool) Name() string                  { return t.name }
func (t *mcpTool) Description() string           { return t.def.description }
func (t *mcpTool) Schema() *tool.Schema          { return t.def.schema }
func (t *mcpTool) Kind() tool.Kind               { return t.def.kind }
func (t *mcpTool) Annotations() tool.Annotations { return t.def.annotations }

// RawSchema is the tool's inputSchema as its server sent it.
func (t *mcpTool) RawSchema() json.RawMessage { return t.def.raw }

// Key is the tool's server and MCP name; Key().String() is "server:tool".
func (t *mcpTool) Key() ToolKey { return t.def.key }

// validatorFor compiles the tool's parameter schema once, at first use.
func (d *toolDef) validatorFor() (*tool.Validator, error) {
	d.validatorOnce.Do(func() {
		if d.raw != nil {
			// The server's own schema when it compiles on its own (a
			// $ref to a file or a URL does not): a value it allows,
			// such as null for a nullable boolean, is not refused by
			// the simplified copy the model sees.
			if v, err := tool.NewRawValidator(d.key.String(), d.raw); err == nil {
				d.validator = v
				return
			}
		}
		d.validator, d.validatorErr = tool.NewValidator(d.key.String(), d.schema)
		if d.validatorErr != nil {
			d.validatorErr = &tool.Error{Kind: tool.ErrInvalidParams,
				Message: fmt.Sprintf("MCP tool %s cannot be called: the server's inputSchema does not compile (%v); tell the server's maintainers", d.key, d.validatorErr)}
		}
	})
	return d.validator, d.validatorErr
}

// Build checks the parameters and returns an invocation.
func (t *mcpTool) Build(params json.RawMessage) (tool.Invocation, error) {
	v, err := t.def.validatorFor()
	if err != nil {
		return nil, err
	}
	checked, err := v.Validate(params)
	if err != nil {
		// null for an optional parameter whose schema has no null is
		// taken as the parameter left out (nullargs.go).
		if c, ok := withoutRefusedNulls(v, params, t.def.requiredParams()); ok {
			return &invocation{t: t, params: c}, nil
		}
		return nil, err
	}
	return &invocation{t: t, params: checked}, nil
}

type invocation struct {
	t      *mcpTool
	params json.RawMessage
}

func (i *invocation) Params() json.RawMessage { return i.params }
func (i *invocation) Description() string     { return "Call MCP tool " + i.t.def.key.String() }
func (i *invocation) Locations() []string     { return nil }

func (i *invocation) Confirmation() *tool.Confirmation {
	return &tool.Confirmation{
		Title: "Call MCP tool " + i.t.def.key.String(),
		Kind:  i.t.def.kind, Risk: i.t.def.risk, Params: i.params,
	}
}

func (i *invocation) Execute(ctx context.Context, out func(tool.Chunk)) (tool.Result, error) {
	if i.t.def.early {
		return i.t.m.callEarly(ctx, i.t.def, i.params, out)
	}
	return i.t.m.Call(ctx, i.t.def.key, i.params, out)
}

// Call calls a tool on its server. Every failure - server not ready,
// timeout, cancellation, crash, JSON-RPC error, isError - is a tool
// result with Error set, so the model sees it; the error return is
// reserved for misuse.
func (m *Manager) Call(ctx context.Context, key ToolKey, args json.RawMessage, out func(tool.Chunk)) (tool.Result, error) {
	res, _, err := m.call(ctx, key, args, out)
	return res, err
}

// CallResult is a tool result as the server sent it: every content block
// whole (images and audio in base64, embedded resources with their text
// or blob), for `ollm mcp call --json`.
type CallResult struct {
	Tool              string            `json:"tool"` // server:tool
	Content           []json.RawMessage `json:"content"`
	StructuredContent any               `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
}

// CallRaw is Call that also returns the result as the server sent it;
// nil when the call failed before a result came back (the tool.Result
// then holds the error).
func (m *Manager) CallRaw(ctx context.Context, key ToolKey, args json.RawMessage, out func(tool.Chunk)) (tool.Result, *CallResult, error) {
	res, raw, err := m.call(ctx, key, args, out)
	if err != nil || raw == nil {
		return res, nil, err
	}
	cr := &CallResult{Tool: key.String(), Content: []json.RawMessage{}, StructuredContent: raw.StructuredContent, IsError: raw.IsError}
	for _, c := range raw.Content {
		b, err := json.Marshal(c)
		if err != nil {
			return res, nil, err
		}
		cr.Content = append(cr.Content, b)
	}
	return res, cr, nil
}

func (m *Manager) call(ctx context.Context, key ToolKey, args json.RawMessage, out func(tool.Chunk)) (tool.Result, *mcp.CallToolResult, error) {
	m.mu.Lock()
	s, ok := m.servers[key.Server]
	var c *conn
	var st Status
	if ok {
		c, st = s.conn, s.snapshot()
	}
	m.mu.Unlock()
	if !ok {
		return tool.Result{}, nil, fmt.Errorf("no MCP server %q", key.Server)
	}
	if c == nil {
		return errResult(tool.ErrUnavailable, "MCP server %q is %s%s", key.Server, st.State, colon(st.Error)), nil, nil
	}
	timeout := m.opts.callTimeout()
	if s.spec.Config.Timeout > 0 {
		timeout = time.Duration(s.spec.Config.Timeout) * time.Millisecond
	}
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if m.opts.GitWatch != nil && s.spec.Config.Command != "" {
		m.opts.GitWatch.Begin()
		r, raw, err := m.callServer(ctx, callCtx, s, c, key, args, timeout, out)
		for _, h := range m.opts.GitWatch.End() {
			note := "warning: MCP server " + key.Server + ": " + h.String()
			r.ForModel = strings.TrimRight(r.ForModel, "\n") + "\n" + note
			r.Display = strings.TrimRight(r.Display, "\n") + "\n" + note
		}
		return r, raw, err
	}
	return m.callServer(ctx, callCtx, s, c, key, args, timeout, out)
}

func (m *Manager) callServer(ctx, callCtx context.Context, s *server, c *conn, key ToolKey, args json.RawMessage, timeout time.Duration, out func(tool.Chunk)) (tool.Result, *mcp.CallToolResult, error) {
	var res *mcp.CallToolResult
	var err error
	if m.isTask(s, key.Tool) {
		res, err = c.callTask(callCtx, key.Tool, args, out)
	} else {
		res, err = c.callTool(callCtx, key.Tool, args, out)
	}
	c.startedUp.Store(true) // the server has answered since its start-up
	if err != nil {
		return m.callError(ctx, callCtx, s, c, key, timeout, err), nil, nil
	}
	return ConvertResult(key, res, m.opts.maxResult()), res, nil
}

func colon(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

func errResult(kind tool.ErrorKind, format string, args ...any) tool.Result {
	msg := fmt.Sprintf(format, args...)
	return tool.Result{ForModel: msg, Display: msg, Error: &tool.Error{Kind: kind, Message: msg}}
}

// callError turns a failed call into the tool error the model sees.
func (m *Manager) callError(ctx, callCtx context.Context, s *server, c *conn, key ToolKey, timeout time.Duration, err error) tool.Result {
	switch {
	case ctx.Err() != nil:
		return errResult(tool.ErrCancelled, "call to MCP tool %s cancelled (%v); the server was told to stop", key, ctx.Err())
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return errResult(tool.ErrTimeout, "MCP tool %s: no answer within %s; the call was cancelled (raise the server's timeout if it needs longer)", key, timeout)
	}
	if lost := c.causeOf(err); lost != nil {
		return errResult(tool.ErrUnavailable, "MCP server %q (%s) failed during the call to %s: %v%s", key.Server, m.command(s), key.Tool, lost, s.logs.where())
	}
	if need, ok := c.auth.insufficientScope(); ok {
		return errResult(tool.ErrUnavailable, "MCP tool %s: the server refused the call for lack of OAuth scope (HTTP 403 insufficient_scope, it wants %q); run in a terminal: %s --scope %q",
			key, need, s.spec.loginCommand(), m.stepUpScopes(s, need))
	}
	if c.auth.wantsLogin() {
		return errResult(tool.ErrUnavailable, "MCP tool %s: the server refused the OAuth token (HTTP 401) and it could not be refreshed; run in a terminal: %s", key, s.spec.loginCommand())
	}
	if why := httpFailure(err); why != "" && s.spec.Transport() != TransportStdio {
		return errResult(tool.ErrUnavailable, "MCP server %q (%s) failed during the call to %s: %s; check that the server is running (run `ollm mcp list`)%s",
			key.Server, m.command(s), key.Tool, why, s.logs.where())
	}
	return errResult(tool.ErrExec, "MCP tool %s failed: %v", key, err)
}

// httpFailure says in words why an HTTP request to a server failed, ""
// when err is not a failure of the connection. mcp-go's own wording ("transport
// error: unexpected nil response") names neither the cause nor the fix.
func httpFailure(err error) string {
	var te *transport.Error
	if !errors.As(err, &te) {
		return ""
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens at its address any more (connection refused): the server is down"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection before answering: it crashed or was stopped"
	case strings.Contains(err.Error(), "unexpected nil response"):
		return "the server ended its response stream without an answer: it crashed, restarted or dropped the request"
	case strings.Contains(err.Error(), "failed to resume the SSE stream"):
		return "the server's response stream ended and could not be resumed (" + te.Err.Error() + ")"
	}
	return ""
}
