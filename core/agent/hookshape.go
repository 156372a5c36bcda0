package agent

import (
	"strings"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/tool"
)

// withMCP adds to tool-event data the MCP tool t is (hooks.MCPToolKey,
// "server:tool"), which Claude-dialect hooks see as mcp__server__tool
// whatever shorter name the model calls it by. Other tools add nothing.
func withMCP(d map[string]any, t tool.Tool) map[string]any {
	n, ok := t.(interface{ PolicyName() string })
	if !ok {
		return d
	}
	if key := n.PolicyName(); strings.Contains(key, ":") {
		d[hooks.MCPToolKey] = key
	}
	return d
}
