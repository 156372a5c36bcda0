package ext

import (
	"sort"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/tool"
)

// LookupDropped finds, among the extensions' servers, a tool that was
// offered to the model from the tool cache under name and that the
// server, once connected, no longer lists (issue 29): the registry has
// forgotten it, and a call to it is told which server and tool rather
// than that there is no such tool.
func (s *MCPServers) LookupDropped(name string) (tool.Tool, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.Lock()
	exts := make([]string, 0, len(s.mgrs))
	for e := range s.mgrs {
		exts = append(exts, e)
	}
	sort.Strings(exts)
	mgrs := make([]*mcp.Manager, 0, len(exts))
	for _, e := range exts {
		mgrs = append(mgrs, s.mgrs[e])
	}
	s.mu.Unlock()
	for _, m := range mgrs {
		if t, ok := m.LookupDropped(name); ok {
			return t, true
		}
	}
	return nil, false
}
