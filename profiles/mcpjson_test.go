package profiles

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

func TestParseMCPJSON(t *testing.T) {
	data := `{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {"DEBUG": "1"}},
		"remote": {"type": "http", "url": "http://127.0.0.1:9000/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
		"legacy": {"type": "sse", "url": "http://127.0.0.1:9001/sse"},
		"implicit": {"url": "http://127.0.0.1:9002/mcp"},
		"explicit": {"type": "stdio", "command": "srv"}
	}, "other": true}`
	got, err := ParseMCPJSON(".mcp.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]schema.MCPServer{
		"fs":       {Transport: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "."}, Env: map[string]string{"DEBUG": "1"}, Enabled: true},
		"remote":   {Transport: "http", URL: "http://127.0.0.1:9000/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}, Enabled: true},
		"legacy":   {Transport: "sse", URL: "http://127.0.0.1:9001/sse", Enabled: true},
		"implicit": {Transport: "http", URL: "http://127.0.0.1:9002/mcp", Enabled: true},
		"explicit": {Transport: "stdio", Command: "srv", Enabled: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestParseMCPJSONErrors(t *testing.T) {
	tests := map[string]string{
		`[1]`: `.mcp.json: json: cannot unmarshal`,
		`{"mcpServers": {"x": {"type": "ws", "url": "ws://a"}}}`: `server "x": unknown type "ws"`,
		`{"mcpServers": {"x": {"type": "stdio"}}}`:               `server "x": command is required for a stdio server`,
		`{"mcpServers": {"x": {"type": "sse"}}}`:                 `server "x": url is required for a sse server`,
		`{"mcpServers": {"x": {}}}`:                              `server "x": command is required for a stdio server`,
	}
	for in, want := range tests {
		_, err := ParseMCPJSON(".mcp.json", []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", in, err, want)
		}
	}
}
