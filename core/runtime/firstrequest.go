package runtime

import (
	"context"
	"fmt"
	"net/http/httptrace"
	"time"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/mcp"
)

// First request within 50 ms (issue 29): the stdio servers whose tools the
// tool cache holds do not start before the session's first model request
// has been written to the model's connection (mcp.StartGate): 50 node
// servers starting at once take both cores of a small machine while the
// request is built. A call to one of their tools, or a wait for one
// (`@server:uri`), starts that server alone sooner. An interactive
// session whose first prompt has not come within DefaultStartCachedAfter
// starts them anyway, so they are up, their prompts are commands and
// /mcp shows them ready by the time a person has typed. A server of
// those that fails to start is a notice (startFailed): nothing waited for
// it, and the model was offered its tools.

// DefaultStartCachedAfter is Options.StartCachedAfter's default.
const DefaultStartCachedAfter = time.Second

// newStartGate makes the session's gate, and the timer that opens it when
// no request came; nil when every server starts at once.
func (rt *Runtime) newStartGate() {
	if rt.opts.StartCachedNow {
		return
	}
	rt.startGate = mcp.NewStartGate()
	after := rt.opts.StartCachedAfter
	if after == 0 {
		after = DefaultStartCachedAfter
	}
	if after > 0 {
		rt.startTimer = time.AfterFunc(after, rt.startGate.Open)
	}
}

// openingProvider opens the start gate once a model request has been
// written (or Chat returned, for a provider that is not HTTP).
type openingProvider struct {
	llm.Provider
	gate *mcp.StartGate
}

// firstRequestOpens wraps p so that the session's first request opens the
// start gate.
func (rt *Runtime) firstRequestOpens(p llm.Provider) llm.Provider {
	if rt.startGate == nil || p == nil {
		return p
	}
	return openingProvider{Provider: p, gate: rt.startGate}
}

// Unwrap is the provider underneath (llm.Unwrap).
func (p openingProvider) Unwrap() llm.Provider { return p.Provider }

func (p openingProvider) Chat(ctx context.Context, req llm.Request, onEvent func(llm.Event)) (llm.Response, error) {
	if p.gate.IsOpen() {
		return p.Provider.Chat(ctx, req, onEvent)
	}
	defer p.gate.Open()
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { p.gate.Open() },
	})
	return p.Provider.Chat(ctx, req, onEvent)
}

// cachedEvent follows the servers that were connecting with their tools
// offered from the tool cache: one that fails then is reported through
// OnNotice, since no wait reported it.
func (rt *Runtime) cachedEvent(ev mcp.Event) {
	rt.cachedMu.Lock()
	was := rt.cachedServers[ev.Server]
	switch {
	case ev.Status.State == mcp.StateConnecting && ev.Status.Cached:
		if rt.cachedServers == nil {
			rt.cachedServers = map[string]bool{}
		}
		rt.cachedServers[ev.Server] = true
	case ev.Status.State != mcp.StateConnecting:
		delete(rt.cachedServers, ev.Server)
	}
	rt.cachedMu.Unlock()
	if was && ev.Status.State == mcp.StateFailed && rt.opts.OnNotice != nil && (rt.ctx == nil || rt.ctx.Err() == nil) {
		rt.opts.OnNotice(startFailed(ev.Status))
	}
}

// startFailed says that a server whose cached tools the model was offered
// did not start, and where to look.
func startFailed(st mcp.Status) string {
	log := "run `ollm mcp list` to see why"
	if st.Log != "" {
		log = fmt.Sprintf("its log: tail -n 50 %q", st.Log)
	}
	return fmt.Sprintf("MCP server %q did not start: %s; its tools, offered from the tool cache, are gone from the next request on; %s",
		st.Name, st.Error, log)
}
