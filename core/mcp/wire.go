package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// wire sits between mcp-go's client and its transport. It checks what the
// library takes on trust (a server/discover result), and it keeps the
// handlers the client installs, so that messages ollm reads itself (the
// standalone GET stream of streamable HTTP, getstream.go) reach them too.
//
// mcp-go decides by type assertions on the transport what kind of
// connection it has (HTTPConnection: no notifications/cancelled, protocol
// headers), so a stdio transport is wrapped in *wire and an HTTP one in
// *httpWire, which adds the HTTP methods.
type wire struct {
	transport.Interface
	log *slog.Logger

	mu       sync.Mutex
	tasks    map[string]json.RawMessage // task-augmented tools/call results by progress token
	requests transport.RequestHandler
	notify   func(mcp.JSONRPCNotification)
	// rejected is why a server/discover result was refused, "" when it
	// was not (or no probe was sent).
	rejected string
	// schemas are the inputSchemas of the last tools/list pages as the
	// server sent them: mcp-go's Tool keeps only type, properties,
	// required, $defs and additionalProperties of a schema.
	schemas map[string]json.RawMessage
}

func newWire(tr transport.Interface, log *slog.Logger) transport.Interface {
	w := &wire{Interface: tr, log: log}
	if _, ok := tr.(transport.HTTPConnection); ok {
		return &httpWire{wire: w}
	}
	return w
}

// SendRequest passes the request on and checks a server/discover result:
// mcp-go takes any successful answer as proof of a 2026-07-28 server, so a
// server that answers unknown methods with {} would never see initialize.
// A result that does not list the version asked for is turned into an
// error, which makes mcp-go fall back to initialize.
func (w *wire) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := w.Interface.SendRequest(ctx, req)
	if err == nil && req.Method == string(mcp.MethodServerDiscover) && refusedVersionOffered(resp, requestedVersion(req.Params)) {
		// -32022 naming the very version asked for as supported: the
		// refusal was not about the version (a server that rejects a
		// first request, a restarted one); mcp-go retries only with a
		// different version and would fall back to an initialize a
		// 2026-07-28 server does not speak. Ask once more, as is.
		w.log.Info("server/discover refused with unsupported protocol version, which the server lists as supported; asking again")
		resp, err = w.Interface.SendRequest(ctx, req)
	}
	if err == nil && resp != nil && resp.Error == nil && req.Method == string(mcp.MethodToolsCall) {
		w.keepTaskResult(req.Params, resp.Result)
	}
	if err == nil && resp != nil && resp.Error == nil && req.Method == string(mcp.MethodToolsList) {
		w.keepSchemas(resp.Result)
	}
	if err != nil || resp == nil || resp.Error != nil || req.Method != string(mcp.MethodServerDiscover) {
		return resp, err
	}
	if why := checkDiscover(requestedVersion(req.Params), resp.Result); why != "" {
		w.mu.Lock()
		w.rejected = why
		w.mu.Unlock()
		w.log.Warn("server/discover result rejected; falling back to initialize", "why", why)
		return nil, fmt.Errorf("server/discover: %s", why)
	}
	return resp, nil
}

// refusedVersionOffered: resp is an unsupported-protocol-version error
// (-32022) whose data lists asked among the supported versions.
func refusedVersionOffered(resp *transport.JSONRPCResponse, asked string) bool {
	if resp == nil || resp.Error == nil || resp.Error.Code != codeUnsupportedVersion || asked == "" {
		return false
	}
	b, err := json.Marshal(resp.Error.Data)
	if err != nil {
		return false
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	return json.Unmarshal(b, &data) == nil && slices.Contains(data.Supported, asked)
}

// codeUnsupportedVersion is the JSON-RPC error of a request in a protocol
// version the server does not support (2026-07-28).
const codeUnsupportedVersion = -32022

// keepSchemas notes each listed tool's inputSchema as sent.
func (w *wire) keepSchemas(result json.RawMessage) {
	var page struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &page) != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.schemas == nil {
		w.schemas = map[string]json.RawMessage{}
	}
	for _, t := range page.Tools {
		if len(t.InputSchema) > 0 {
			w.schemas[t.Name] = t.InputSchema
		}
	}
}

// rawSchemas gives each tool of list the inputSchema its server sent
// (Tool.RawInputSchema, which is also what the tool cache stores).
func (w *wire) rawSchemas(list []mcp.Tool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range list {
		if raw, ok := w.schemas[list[i].Name]; ok && list[i].RawInputSchema == nil {
			list[i].RawInputSchema = raw
			list[i].InputSchema = mcp.ToolInputSchema{}
		}
	}
}

// answerRefusals turns a refusal by the user into the JSON-RPC error the
// spec asks for (code -1), where mcp-go's transports would answer any
// handler error with an internal error.
func answerRefusals(h transport.RequestHandler) transport.RequestHandler {
	if h == nil {
		return nil
	}
	return func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		resp, err := h(ctx, req)
		var refused *refusedError
		if errors.As(err, &refused) {
			return transport.NewJSONRPCErrorResponse(req.ID, codeUserRejected, refused.msg, nil), nil
		}
		return resp, err
	}
}

// discoverRejected says why a server/discover result was refused.
func (w *wire) discoverRejected() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rejected
}

// SetRequestHandler keeps the client's handler for server-to-client
// requests and passes it on.
func (w *wire) SetRequestHandler(h transport.RequestHandler) {
	h = answerRefusals(h)
	w.mu.Lock()
	w.requests = h
	w.mu.Unlock()
	if b, ok := w.Interface.(transport.BidirectionalInterface); ok {
		b.SetRequestHandler(h)
	}
}

// SetNotificationHandler keeps the client's notification handler and
// passes it on.
func (w *wire) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	w.mu.Lock()
	w.notify = h
	w.mu.Unlock()
	w.Interface.SetNotificationHandler(h)
}

func (w *wire) handlers() (transport.RequestHandler, func(mcp.JSONRPCNotification)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.requests, w.notify
}

// httpWire is the wire of an HTTP transport (SSE or streamable HTTP).
type httpWire struct{ *wire }

func (w *httpWire) SetProtocolVersion(v string) {
	w.Interface.(transport.HTTPConnection).SetProtocolVersion(v)
}

// SetConnectionLostHandler is the optional interface mcp-go's client
// looks for (Client.OnConnectionLost).
func (w *httpWire) SetConnectionLostHandler(h func(error)) {
	if s, ok := w.Interface.(interface{ SetConnectionLostHandler(func(error)) }); ok {
		s.SetConnectionLostHandler(h)
	}
}

// wireOf finds the wire under an mcp-go transport.
func wireOf(tr transport.Interface) *wire {
	switch w := tr.(type) {
	case *wire:
		return w
	case *httpWire:
		return w.wire
	}
	return nil
}

// requestedVersion is the protocol version a request declares in its
// _meta (2026-07-28 requests carry it there).
func requestedVersion(params any) string {
	b, err := json.Marshal(params)
	if err != nil {
		return ""
	}
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	v, _ := p.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v
}

// checkDiscover says what is wrong with a server/discover result, "" when
// nothing is: it must be an object whose supportedVersions include the
// version the request asked for (a server that does not support it
// answers with an UnsupportedProtocolVersion error instead) and whose
// capabilities are an object.
func checkDiscover(asked string, result json.RawMessage) string {
	var r struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "the result is not an object: " + err.Error()
	}
	if len(r.SupportedVersions) == 0 {
		return "the result lists no supportedVersions"
	}
	if asked != "" && !slices.Contains(r.SupportedVersions, asked) {
		return fmt.Sprintf("supportedVersions %v do not include %s, the version asked for", r.SupportedVersions, asked)
	}
	var caps map[string]json.RawMessage
	if len(r.Capabilities) == 0 || json.Unmarshal(r.Capabilities, &caps) != nil || caps == nil {
		return "the result has no capabilities object"
	}
	return ""
}

// keepTaskResult keeps the result of a task-augmented tools/call (its
// CreateTaskResult, which mcp-go would read as an empty tool result) under
// the request's progress token, for callTask.
func (w *wire) keepTaskResult(params any, result json.RawMessage) {
	b, err := json.Marshal(params)
	if err != nil {
		return
	}
	var p struct {
		Task json.RawMessage `json:"task"`
		Meta struct {
			ProgressToken any `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(b, &p) != nil || len(p.Task) == 0 || string(p.Task) == "null" || p.Meta.ProgressToken == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tasks == nil {
		w.tasks = map[string]json.RawMessage{}
	}
	w.tasks[fmt.Sprint(p.Meta.ProgressToken)] = result
}

// takeTaskResult returns and forgets the result kept for token.
func (w *wire) takeTaskResult(token string) json.RawMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.tasks[token]
	delete(w.tasks, token)
	return r
}
