package profiles

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/ollm/ollm/schema"
)

// mcpJSON is the common .mcp.json shape other agent CLIs write.
type mcpJSON struct {
	MCPServers map[string]struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
		Cwd     string            `json:"cwd"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Timeout int               `json:"timeout"`
	} `json:"mcpServers"`
}

// ParseMCPJSON reads a .mcp.json into servers. type "stdio" (or a command
// with no type) is stdio, "sse" is SSE, "http" and "streamable-http" are
// streamable HTTP; a url with no type is streamable HTTP.
func ParseMCPJSON(file string, data []byte) (map[string]schema.MCPServer, error) {
	var doc mcpJSON
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	out := map[string]schema.MCPServer{}
	for name, s := range doc.MCPServers {
		ms := schema.MCPServer{Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd, URL: s.URL,
			Headers: s.Headers, Timeout: s.Timeout, Enabled: true}
		switch s.Type {
		case "", "stdio":
			ms.Transport = "stdio"
			if s.Command == "" && s.URL != "" {
				ms.Transport = "http"
			}
		case "sse":
			ms.Transport = "sse"
		case "http", "streamable-http", "streamableHttp":
			ms.Transport = "http"
		default:
			return nil, fmt.Errorf("%s: server %q: unknown type %q (want stdio, sse or http)", file, name, s.Type)
		}
		if ms.Transport == "stdio" && ms.Command == "" {
			return nil, fmt.Errorf("%s: server %q: command is required for a stdio server", file, name)
		}
		if ms.Transport != "stdio" && ms.URL == "" {
			return nil, fmt.Errorf("%s: server %q: url is required for a %s server", file, name, ms.Transport)
		}
		out[name] = ms
	}
	return out, nil
}

// mergeMCPJSON adds the workspace .mcp.json servers to the profile as
// workspace-scoped servers. A name the profile already declares keeps the
// profile's definition.
func mergeMCPJSON(opts Options, data []byte, r *schema.Resolved) []schema.Problem {
	if data == nil {
		return nil
	}
	file := opts.Workspace.MCPJSON()
	servers, err := ParseMCPJSON(file, data)
	if err != nil {
		return []schema.Problem{{Severity: "error", File: file, Message: err.Error() + "; its servers are not loaded", Fix: "fix " + file}}
	}
	return addServers(r, servers, schema.ScopeWorkspace, func(n string) schema.Problem {
		return schema.Problem{Severity: "warning", File: file,
			Message: fmt.Sprintf("server %q is also declared in the profile; the profile's definition is used", n)}
	})
}

// addServers adds servers of another file (.mcp.json, Gemini's settings)
// to the profile in name order with their scope; a name the profile (or
// a file merged before) declares keeps that definition, and dup says so.
func addServers(r *schema.Resolved, servers map[string]schema.MCPServer, scope schema.Scope, dup func(name string) schema.Problem) []schema.Problem {
	var probs []schema.Problem
	for _, n := range slices.Sorted(maps.Keys(servers)) {
		if _, ok := r.Profile.MCP.Servers[n]; ok {
			probs = append(probs, dup(n))
			continue
		}
		if r.Profile.MCP.Servers == nil {
			r.Profile.MCP.Servers = map[string]schema.MCPServer{}
		}
		if r.ServerScopes == nil {
			r.ServerScopes = map[string]schema.Scope{}
		}
		r.Profile.MCP.Servers[n] = servers[n]
		r.ServerScopes[n] = scope
	}
	return probs
}
