package cli

import "testing"

// TestMCPCallAdHocToolName: with --url or --command the tool may be
// given as `ollm mcp tools --url` shows it, adhoc:<tool>, as well as
// bare.
func TestMCPCallAdHocToolName(t *testing.T) {
	for _, o := range []*MCPOptions{{URL: "http://127.0.0.1:1/mcp"}, {Command: "node server.js"}} {
		for _, tool := range []string{"adhoc:add_numbers", "add_numbers"} {
			server, name, params, err := mcpCallArgs(o, []string{tool, `{"a":2}`})
			if err != nil || server != adHocName || name != "add_numbers" || params != `{"a":2}` {
				t.Errorf("mcpCallArgs(%q) = %q, %q, %q, %v; want adhoc, add_numbers", tool, server, name, params, err)
			}
		}
	}
}
