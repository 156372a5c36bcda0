package runtime

import (
	"fmt"

	"github.com/ollm/ollm/core/mcp"
)

// StartServer starts an MCP server the profile does not declare, which
// the caller has had approved: the servers an editor passes in ACP's
// session/new (`ollm acp`). It joins the servers approved in this session
// (MCPStatus lists it, its tools go through the gate like any other and a
// stdio server runs in the profile's MCP sandbox); a Reload drops it. A
// name a server of the runtime already has is refused. It returns once
// the server is started, not connected: WaitServers (or
// WaitServersNotify) waits for it with the others, and its tools join the
// session when it is ready.
func (rt *Runtime) StartServer(s mcp.Spec) error {
	for _, st := range rt.MCPStatus() {
		if st.Name == s.Name {
			return fmt.Errorf("MCP server %s: the profile already has a server of that name; it was not started", s.Name)
		}
	}
	rt.mu.Lock()
	if _, taken := rt.approved[s.Name]; taken {
		rt.mu.Unlock()
		return fmt.Errorf("MCP server %s is already running in this session", s.Name)
	}
	g := rt.resolved
	rt.mu.Unlock()
	m := rt.newMCP([]mcp.Spec{s}, rt.serverOptions(g, func(mcp.Spec) bool { return true }))
	rt.mu.Lock()
	rt.approved[s.Name], rt.editor[s.Name], rt.live[m] = m, true, true
	rt.mu.Unlock()
	m.Start()
	return nil
}

// ServerStatus is the status of the server of that name among the
// profile's and those approved or started in this session.
func (rt *Runtime) ServerStatus(name string) (mcp.Status, bool) {
	for _, st := range rt.MCPStatus() {
		if st.Name == name {
			return st, true
		}
	}
	return mcp.Status{}, false
}
