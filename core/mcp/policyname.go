package mcp

// PolicyName is the name the policy judges an MCP tool by: "server:tool",
// whatever name the model is shown, so rules such as `mcp:github:*` match
// in a session exactly as in `ollm policy check`.
func (t *mcpTool) PolicyName() string { return t.def.key.String() }
