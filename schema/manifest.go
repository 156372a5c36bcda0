package schema

// Manifest is an extension's manifest.json.
type Manifest struct {
	Name            string               `json:"name"`
	Version         string               `json:"version"`
	Description     string               `json:"description"`
	MCPServers      map[string]MCPServer `json:"mcpServers,omitempty"`
	Hooks           map[string][]Hook    `json:"hooks,omitempty"` // event -> hooks in manifest order
	Settings        []Setting            `json:"settings,omitempty"`
	Skills          []Skill              `json:"skills,omitempty"`
	Agents          []Subagent           `json:"agents,omitempty"`
	ContextFileName string               `json:"contextFileName,omitempty"`
	ExcludeTools    []string             `json:"excludeTools,omitempty"`
	// Permissions are what the extension asks for: the sandbox of its
	// hooks and stdio servers that declare none of their own. The lock
	// pins them beside the hash and an approval covers both.
	Permissions *Sandbox `json:"permissions,omitempty"`
}

// Setting declares one extension setting.
type Setting struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	EnvVar      string `json:"envVar,omitempty"`
	Sensitive   bool   `json:"sensitive"`
	Required    bool   `json:"required"`
	Type        string `json:"type"` // "string" | "number" | "boolean"
	Default     any    `json:"default,omitempty"`
	Enum        []any  `json:"enum,omitempty"`
	Pattern     string `json:"pattern,omitempty"`
}
