package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

func TestMCPServerFromFlags(t *testing.T) {
	tests := []struct {
		name, command, url, transport string
		env, headers                  []string
		want                          schema.MCPServer
		err                           string
	}{
		{name: "fs", command: `npx -y "@scope/server fs" .`, env: []string{"A=1", "B=x=y"},
			want: schema.MCPServer{Command: "npx", Args: []string{"-y", "@scope/server fs", "."}, Env: map[string]string{"A": "1", "B": "x=y"}}},
		{name: "web", url: "https://127.0.0.1/mcp", headers: []string{"Authorization=Bearer ${T}"},
			want: schema.MCPServer{URL: "https://127.0.0.1/mcp", Transport: "http", Headers: map[string]string{"Authorization": "Bearer ${T}"}}},
		{name: "old", url: "http://127.0.0.1:1/sse", want: schema.MCPServer{URL: "http://127.0.0.1:1/sse", Transport: "sse"}},
		{name: "forced", url: "http://127.0.0.1:1/events", transport: "sse", want: schema.MCPServer{URL: "http://127.0.0.1:1/events", Transport: "sse"}},
		{name: "x", err: "give the server"},
		{name: "x", command: "a", url: "http://h/", err: "not both"},
		{name: "x", command: "a", headers: []string{"A=1"}, err: "go with --url"},
		{name: "x", command: `a "unclosed`, err: "as a shell would split them"},
		{name: "x", url: "127.0.0.1:1/mcp", err: "want an http:// or https:// URL"},
		{name: "x", url: "http://h/", transport: "stdio", err: "want sse or http"},
		{name: "x", command: "a", env: []string{"=v"}, err: "want KEY=VALUE"},
		{name: "-x", command: "a", err: `server name "-x"`},
		{name: "a:b", command: "a", err: `server name "a:b"`},
	}
	for _, tt := range tests {
		got, err := mcpServerFromFlags(tt.name, tt.command, tt.url, tt.transport, tt.env, tt.headers)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s %q %q: err %v, want %q", tt.name, tt.command, tt.url, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}
