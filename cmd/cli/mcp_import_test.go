package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

func TestParseImportServer(t *testing.T) {
	tests := []struct {
		format, raw string
		want        schema.MCPServer
		warn, err   string
	}{
		{format: "gemini", raw: `{"url": "http://h/events"}`, want: schema.MCPServer{URL: "http://h/events", Transport: "sse"}},
		{format: "gemini", raw: `{"httpUrl": "http://h/mcp", "headers": {"X-Key": "$K"}}`,
			want: schema.MCPServer{URL: "http://h/mcp", Transport: "http", Headers: map[string]string{"X-Key": "${K}"}}},
		{format: "mcp-json", raw: `{"url": "http://h/mcp"}`, want: schema.MCPServer{URL: "http://h/mcp", Transport: "http"}},
		{format: "mcp-json", raw: `{"type": "sse", "url": "http://h/x"}`, want: schema.MCPServer{URL: "http://h/x", Transport: "sse"}},
		{format: "mcp-json", raw: `{"type": "streamable-http", "url": "http://h/sse"}`, want: schema.MCPServer{URL: "http://h/sse", Transport: "http"}},
		{format: "mcp-json", raw: `{"command": "x", "args": ["$HOME"]}`, want: schema.MCPServer{Command: "x", Args: []string{"$HOME"}}},
		{format: "gemini", raw: `{"command": "x", "tcp": "h:1"}`, want: schema.MCPServer{Command: "x"}, warn: "mcpServers.s.tcp is not imported: ollm speaks stdio, SSE and streamable HTTP only"},
		{format: "gemini", raw: `{"command": "x", "oauth": {}}`, want: schema.MCPServer{Command: "x"}, warn: "run ollm mcp login s"},
		{format: "gemini", raw: `{}`, err: "no command, url or httpUrl"},
		{format: "gemini", raw: `{"command": "x", "url": "http://h/"}`, err: "both command and a url"},
		{format: "mcp-json", raw: `{"type": "ws", "url": "http://h/"}`, err: `type "ws": want sse or http`},
		{format: "mcp-json", raw: `{"url": "ftp://h/"}`, err: "want an http:// or https:// URL"},
		{format: "mcp-json", raw: `{"command": 3}`, err: "mcpServers.s: json"},
	}
	for _, tt := range tests {
		got, err := parseImportServer("f.json", tt.format, "s", []byte(tt.raw))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.raw, err, tt.err)
			}
			continue
		}
		if tt.want.Transport == "" {
			tt.want.Transport = "stdio"
		}
		tt.want.Enabled = true
		if err != nil || !reflect.DeepEqual(got.Server, tt.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tt.raw, got.Server, err, tt.want)
		}
		if w := strings.Join(got.Warnings, "\n"); (tt.warn == "") != (w == "") || !strings.Contains(w, tt.warn) {
			t.Errorf("%s: warnings %q, want %q", tt.raw, w, tt.warn)
		}
	}
}

func TestSecretsIn(t *testing.T) {
	tests := []struct {
		server schema.MCPServer
		want   []string
	}{
		{schema.MCPServer{Env: map[string]string{"GITHUB_TOKEN": "${GITHUB_TOKEN}", "LOG": "debug", "API_KEY": ""}}, nil},
		{schema.MCPServer{Env: map[string]string{"GITHUB_TOKEN": "ghp_abc", "DB_PASSWORD": "${P:-hunter2}"}},
			[]string{`env DB_PASSWORD`, `env GITHUB_TOKEN`}},
		{schema.MCPServer{Headers: map[string]string{"Authorization": "Bearer ${T}", "Accept": "x"}}, nil},
		{schema.MCPServer{Headers: map[string]string{"authorization": "Bearer abc", "X-Api-Key": "k"}},
			[]string{"header X-Api-Key", "header authorization"}},
		{schema.MCPServer{URL: "https://u:pw@h/mcp?api_key=abc&q=1"}, []string{"the password in url", "url parameter api_key"}},
		{schema.MCPServer{URL: "https://h/mcp?token=${T}"}, nil},
		{schema.MCPServer{Command: "x", Args: []string{"--api-key=abc", "--token", "--verbose=1", "--secret=${S}"}}, []string{"args[0] --api-key"}},
	}
	for _, tt := range tests {
		var got []string
		for _, w := range secretsIn(importedServer{Name: "s", Server: tt.server}) {
			got = append(got, strings.SplitN(w, " (", 2)[0])
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%+v: got %q, want %q", tt.server, got, tt.want)
		}
	}
}
