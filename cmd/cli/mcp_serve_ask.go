package cli

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
)

// serveAsker answers the gate's confirmations of `ollm mcp serve`, the
// same on stdio and HTTP: through the MCP client that made the call when
// it offers elicitation, else a deny that says why nobody was asked.
//
// The question is a multi round-trip request (MCP 2026-07-28, SEP-2322):
// the call runs in the background until the gate asks; tools/call then
// returns an input_required result with the elicitation, the call waiting
// on the bus, and the client's retry (its answer and the requestState)
// answers the bus and waits for the result. For clients of earlier
// protocol versions mcp-go turns that into the server-initiated
// elicitation/create and the retry itself.
type serveAsker struct {
	srv  *server.MCPServer
	bus  *bus.Bus
	base context.Context // the server's: calls outlive one request

	mu       sync.Mutex
	calls    map[string]*serveCall // call id -> running call
	confirms map[string]string     // confirmation key -> call id
	parked   map[string]*serveCall // requestState -> call waiting for its answer
}

// serveCall is one tools/call running through the gate.
type serveCall struct {
	req      context.Context // the request that started it (its client session)
	cancel   context.CancelFunc
	asks     chan bus.Request
	done     chan *mcp.CallToolResult
	asking   bus.Request // the question parked under a requestState
	progress *progress   // nil: the client asked for no progress
}

func newServeAsker(ctx context.Context, srv *server.MCPServer, b *bus.Bus) *serveAsker {
	return &serveAsker{srv: srv, bus: b, base: ctx, calls: map[string]*serveCall{}, confirms: map[string]string{}, parked: map[string]*serveCall{}}
}

// confirmID is the key of the question in inputRequests/inputResponses.
const confirmID = "confirm"

// run starts call id (fn runs it through the gate) and waits for its
// result or its question.
func (a *serveAsker) run(ctx context.Context, id string, p *progress, fn func(context.Context) tool.Result) (*mcp.CallToolResult, error) {
	cctx, cancel := context.WithCancel(a.base)
	c := &serveCall{req: ctx, cancel: cancel, asks: make(chan bus.Request, 1), done: make(chan *mcp.CallToolResult, 1), progress: p}
	a.mu.Lock()
	a.calls[id] = c
	a.mu.Unlock()
	stop := context.AfterFunc(ctx, cancel)
	go func() {
		defer cancel()
		res := fn(cctx)
		a.mu.Lock()
		delete(a.calls, id)
		for st, p := range a.parked {
			if p == c {
				delete(a.parked, st)
			}
		}
		a.mu.Unlock()
		if p != nil {
			p.stop()
		}
		c.done <- toolResult(res)
	}()
	return a.wait(ctx, c, stop)
}

// wait returns the call's result, or parks it and returns its question.
func (a *serveAsker) wait(ctx context.Context, c *serveCall, stop func() bool) (*mcp.CallToolResult, error) {
	select {
	case r := <-c.done:
		return r, nil
	case req := <-c.asks:
		if !stop() {
			return nil, ctx.Err() // the request ended as the question came
		}
		state := rand.Text()
		a.mu.Lock()
		c.asking = req
		a.parked[state] = c
		a.mu.Unlock()
		return server.NewInputRequestBuilder(state).Elicit(confirmID, elicitation(req.Details)).ToolResult(), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// resume is the client's retry with its answer: the bus gets the answer
// and the call goes on.
func (a *serveAsker) resume(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a.mu.Lock()
	c := a.parked[req.Params.RequestState]
	delete(a.parked, req.Params.RequestState)
	a.mu.Unlock()
	if c == nil {
		return mcp.NewToolResultError("ollm mcp serve: this requestState is unknown or expired (the call was answered, timed out or the server restarted); call the tool again"), nil
	}
	stop := context.AfterFunc(ctx, c.cancel)
	_ = a.bus.Respond(answerOf(c.asking.ID, server.ElicitationResponse(req.Params.InputResponses, confirmID)))
	return a.wait(ctx, c, stop)
}

func toolResult(res tool.Result) *mcp.CallToolResult {
	text := res.ForModel
	if res.Error != nil {
		if text == "" {
			text = res.Error.Message
		}
		return mcp.NewToolResultError(text)
	}
	return mcp.NewToolResultText(text)
}

// event maps a confirmation to its call: the gate publishes EvToolConfirm
// just before it asks the bus.
func (a *serveAsker) event(e agent.Event) {
	if e.Type == agent.EvToolConfirm && e.Tool != nil && e.Tool.Confirm != nil {
		a.mu.Lock()
		a.confirms[serveConfirmKey(*e.Tool.Confirm)] = e.Tool.ID
		a.mu.Unlock()
	}
}

func serveConfirmKey(d policy.Details) string { return d.Tool + "\x00" + string(d.Params) }

// answer answers the bus: a question of a call whose client can be asked
// goes to that call; any other is denied at once, saying why.
func (a *serveAsker) answer(ch <-chan bus.Event) {
	for ev := range ch {
		if ev.Kind != bus.Requested {
			continue
		}
		req, d := ev.Request, ev.Request.Details
		if d.Tool == bus.ElicitTool || d.Tool == bus.SampleTool {
			_ = a.bus.Respond(bus.Response{ID: req.ID, Answer: bus.Deny, Headless: true,
				Feedback: "ollm mcp serve cannot pass an MCP server's " + strings.TrimPrefix(d.Tool, "mcp/") + " request on to its client"})
			continue
		}
		c := a.callOf(d)
		if c == nil || !canElicit(c.req) {
			_ = a.bus.Respond(bus.Response{ID: req.ID, Answer: bus.Deny, Headless: true, Feedback: cannotAsk(d)})
			continue
		}
		c.asks <- req
	}
}

// callOf is the running call that asked, or nil.
func (a *serveAsker) callOf(d policy.Details) *serveCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	key := serveConfirmKey(d)
	id, ok := a.confirms[key]
	delete(a.confirms, key)
	if !ok {
		return nil
	}
	return a.calls[id]
}

// elicitation is the question: allow once or deny.
func elicitation(d policy.Details) mcp.ElicitationParams {
	return mcp.ElicitationParams{
		Message: confirmMessage(d),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"decision": map[string]any{"type": "string", "title": "Run this call?",
					"enum": []string{"allow", "deny"}, "enumNames": []string{"Allow once", "Deny"}},
			},
			"required": []string{"decision"},
		},
	}
}

// answerOf is the bus's answer from the client's elicitation result.
func answerOf(id string, res *mcp.ElicitationResult) bus.Response {
	switch {
	case res == nil:
		return bus.Response{ID: id, Answer: bus.Deny, Feedback: "the MCP client sent no answer"}
	case res.Action == mcp.ElicitationResponseActionAccept && decision(res.Content) == "allow":
		return bus.Response{ID: id, Answer: bus.AllowOnce}
	case res.Action == mcp.ElicitationResponseActionAccept:
		return bus.Response{ID: id, Answer: bus.Deny, Feedback: "denied through the MCP client"}
	}
	return bus.Response{ID: id, Answer: bus.Deny, Feedback: fmt.Sprintf("the MCP client's user answered %s", res.Action)}
}

// canElicit reports whether the client of the request declared the
// elicitation capability.
func canElicit(ctx context.Context) bool {
	s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	return ok && s.GetClientCapabilities().Elicitation != nil
}

func decision(content any) string {
	if m, ok := content.(map[string]any); ok {
		if s, ok := m["decision"].(string); ok {
			return s
		}
	}
	return ""
}

func askedBy(d policy.Details) string {
	if d.Trust != "" {
		return "ollm's rule for files that decide what runs"
	}
	if d.Rule != nil {
		return "rule " + d.Rule.Label()
	}
	return "the default action (ask)"
}

// confirmMessage is the question as the client's user reads it.
func confirmMessage(d policy.Details) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ollm: %s", d.Tool)
	if d.Description != "" {
		fmt.Fprintf(&b, " - %s", d.Description)
	}
	if d.Command != "" {
		fmt.Fprintf(&b, "\n\n    %s", d.Command)
	} else if len(d.Params) > 0 {
		fmt.Fprintf(&b, "\n\n    %s", d.Params)
	}
	if d.Diff != "" {
		fmt.Fprintf(&b, "\n\n%s", strings.TrimRight(d.Diff, "\n"))
	}
	fmt.Fprintf(&b, "\n\nAsked by %s: %s", askedBy(d), d.Reason)
	return b.String()
}

// cannotAsk is the refusal of a call the policy asks about when the
// client cannot be asked.
func cannotAsk(d policy.Details) string {
	if d.Trust != "" {
		return bus.TrustRefusal(d, "this MCP client cannot ask its user (it does not offer elicitation)")
	}
	return fmt.Sprintf("%s needs confirmation (%s asked: %s), but this MCP client cannot be asked (it does not offer elicitation); "+
		"add an allow rule for it to the ollm profile, or start `ollm mcp serve --approval-mode auto_edit`", d.Tool, askedBy(d), d.Reason)
}
