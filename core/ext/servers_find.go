package ext

import (
	"sort"

	"github.com/ollm/ollm/core/mcp"
)

// ManagerOf returns the Manager that runs an extension's MCP server of
// that name (the first extension in name order when two have one), or
// nil. A session reads resources the user mentions (`@server:uri`)
// through it.
func (s *MCPServers) ManagerOf(server string) *mcp.Manager {
	s.mu.Lock()
	defer s.mu.Unlock()
	exts := make([]string, 0, len(s.mgrs))
	for e := range s.mgrs {
		exts = append(exts, e)
	}
	sort.Strings(exts)
	for _, e := range exts {
		if m := s.mgrs[e]; m.Has(server) {
			return m
		}
	}
	return nil
}
