package runtime

import (
	"context"
	"fmt"

	"github.com/ollm/ollm/core/mcp"
)

// StartServer starts an MCP server the profile does not declare, which
// the caller has had approved: the servers an editor passes in ACP's
// session/new (`ollm acp`). It joins the servers approved in this session
// (MCPStatus lists it, its tools go through the gate like any other and a
// stdio server runs in the profile's MCP sandbox); a Reload drops it. A
// name a server of the runtime already has is refused.
func (rt *Runtime) StartServer(ctx context.Context, s mcp.Spec) (mcp.Status, error) {
	for _, st := range rt.MCPStatus() {
		if st.Name == s.Name {
			return mcp.Status{}, fmt.Errorf("MCP server %s: the profile already has a server of that name; it was not started", s.Name)
		}
	}
	rt.mu.Lock()
	if _, taken := rt.approved[s.Name]; taken {
		rt.mu.Unlock()
		return mcp.Status{}, fmt.Errorf("MCP server %s is already running in this session", s.Name)
	}
	g := rt.resolved
	rt.mu.Unlock()
	m := rt.newMCP([]mcp.Spec{s}, rt.serverOptions(g, func(mcp.Spec) bool { return true }))
	rt.mu.Lock()
	rt.approved[s.Name], rt.live[m] = m, true
	rt.mu.Unlock()
	m.Start()
	if err := m.WaitReady(ctx); err != nil {
		return mcp.Status{}, err
	}
	rt.addPrompts(ctx, m)
	st := m.Status()
	if len(st) != 1 {
		return mcp.Status{}, fmt.Errorf("MCP server %s: no status", s.Name)
	}
	if st[0].State == mcp.StateFailed {
		return st[0], fmt.Errorf("MCP server %s failed: %s", s.Name, st[0].Error)
	}
	return st[0], nil
}
