package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ollm/ollm/schema"
)

// mcpJSONServer is one entry of the common .mcp.json "mcpServers" shape.
type mcpJSONServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// ParseMCPJSON reads a workspace .mcp.json ({"mcpServers": {name: {type,
// command, args, env, url, headers}}}) into server configurations. file
// names the file in errors. Servers from it run only after the user
// approves the workspace: give them schema.ScopeWorkspace.
func ParseMCPJSON(file string, data []byte) (map[string]schema.MCPServer, error) {
	var doc struct {
		MCPServers map[string]mcpJSONServer `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v; the file must be a JSON object with an \"mcpServers\" object", file, err)
	}
	out := make(map[string]schema.MCPServer, len(doc.MCPServers))
	names := make([]string, 0, len(doc.MCPServers))
	for name := range doc.MCPServers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s, err := fromMCPJSON(doc.MCPServers[name])
		if err != nil {
			return nil, fmt.Errorf("%s: mcpServers.%s: %v", file, name, err)
		}
		out[name] = s
	}
	return out, nil
}

func fromMCPJSON(e mcpJSONServer) (schema.MCPServer, error) {
	s := schema.MCPServer{
		Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers, Enabled: true,
	}
	switch strings.ToLower(e.Type) {
	case "":
		s.Transport = transportOf(s)
	case "stdio":
		s.Transport = TransportStdio
	case "sse":
		s.Transport = TransportSSE
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		s.Transport = TransportHTTP
	default:
		return s, fmt.Errorf("type %q is not stdio, sse or http", e.Type)
	}
	switch {
	case s.Transport == TransportStdio && s.Command == "":
		return s, fmt.Errorf("a stdio server needs a command")
	case s.Transport != TransportStdio && s.URL == "":
		return s, fmt.Errorf("an %s server needs a url", s.Transport)
	}
	return s, nil
}

// WorkspaceSpecs turns the servers of a workspace .mcp.json into specs that
// need approval before they start.
func WorkspaceSpecs(servers map[string]schema.MCPServer) []Spec {
	var specs []Spec
	for _, name := range sortedKeys(servers) {
		specs = append(specs, Spec{Name: name, Config: servers[name], Scope: schema.ScopeWorkspace})
	}
	return specs
}
