package ext

import (
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/schema"
)

// Every string of a manifest is substituted (contextFileName too); a
// Gemini CLI extension's stdio server starts in the workspace as Gemini
// CLI starts it, an ollm one in the extension; mcp.overrides cwd moves it.
func TestPrepareGeminiStringsAndCwd(t *testing.T) {
	ws, dir := t.TempDir(), t.TempDir()
	x := schema.Extension{Name: "gem", Dir: dir, Format: "gemini", Manifest: schema.Manifest{
		Name: "gem", Version: "1", Description: "in ${extensionPath}",
		ContextFileName: "docs${/}GEMINI.md",
		MCPServers: map[string]schema.MCPServer{
			"a": {Command: "node", Args: []string{"${extensionPath}${pathSeparator}s.js"}, Transport: "stdio"},
			"b": {Command: "node", Cwd: "sub", Transport: "stdio"},
		},
		Settings: []schema.Setting{{Name: "s", Description: "d", Default: "${workspacePath}/x"}},
	}}
	p := Prepare(x, ws)
	m := p.Manifest
	if m.ContextFileName != "docs/GEMINI.md" || m.Description != "in "+dir || m.Settings[0].Default != ws+"/x" {
		t.Errorf("not substituted: %q %q %v", m.ContextFileName, m.Description, m.Settings[0].Default)
	}
	if a := m.MCPServers["a"]; a.Cwd != ws || a.Args[0] != dir+"/s.js" {
		t.Errorf("server a = %+v; want the workspace as cwd", a)
	}
	if b := m.MCPServers["b"]; b.Cwd != filepath.Join(ws, "sub") {
		t.Errorf("server b cwd = %q", b.Cwd)
	}
	if x.Manifest.ContextFileName != "docs${/}GEMINI.md" || x.Manifest.MCPServers["a"].Cwd != "" {
		t.Error("Prepare changed its input")
	}
	x.Format = "ollm"
	if a := Prepare(x, ws).Manifest.MCPServers["a"]; a.Cwd != "" {
		t.Errorf("an ollm extension's server got cwd %q; it starts in its directory", a.Cwd)
	}
	spec := mcp.Spec{Name: "gem:a", Dir: dir}
	overrideCwd(&spec, schema.MCPOverride{Cwd: "tools"}, ws)
	if spec.Config.Cwd != filepath.Join(ws, "tools") {
		t.Errorf("override cwd = %q", spec.Config.Cwd)
	}
	overrideCwd(&spec, schema.MCPOverride{Cwd: "${extensionPath}/bin"}, ws)
	if spec.Config.Cwd != dir+"/bin" {
		t.Errorf("override cwd = %q", spec.Config.Cwd)
	}
}
