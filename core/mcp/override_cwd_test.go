package mcp

import (
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/schema"
)

// mcp.overrides.<server>.cwd moves a profile server's working directory;
// a relative one is taken in the workspace (issue 15).
func TestOverrideCwdOfAProfileServer(t *testing.T) {
	ws := t.TempDir()
	r := &schema.Resolved{Workspace: ws, Profile: schema.Profile{MCP: schema.MCP{
		Servers: map[string]schema.MCPServer{
			"fs":    {Command: "node", Cwd: "/elsewhere"},
			"db":    {Command: "node"},
			"plain": {Command: "node", Cwd: "/kept"},
		},
		Overrides: map[string]schema.MCPOverride{"fs": {Cwd: "sub/dir"}, "db": {Cwd: "/abs"}},
	}}}
	got := map[string]string{}
	for _, s := range Specs(r) {
		got[s.Name] = s.Config.Cwd
	}
	want := map[string]string{"fs": filepath.Join(ws, "sub/dir"), "db": "/abs", "plain": "/kept"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: cwd %q, want %q", k, got[k], v)
		}
	}
}
