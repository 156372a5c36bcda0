package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/schema"
)

// A server's sandbox: its own, else its extension's permissions, else the
// profile's sandbox.mcp, with sandbox.ProcessDefault for what is unset.
func TestSandboxPolicy(t *testing.T) {
	off, on := false, true
	ro := &schema.Sandbox{Preset: schema.SandboxReadOnly}
	noNet := &schema.Sandbox{Network: &off}
	r := &schema.Resolved{
		Profile: schema.Profile{MCP: schema.MCP{Servers: map[string]schema.MCPServer{
			"own":   {Command: "x", Sandbox: noNet},
			"plain": {Command: "x"},
		}}},
		Extensions: []schema.Extension{{Name: "ext", Dir: "/x/ext", Manifest: schema.Manifest{
			Permissions: ro,
			MCPServers: map[string]schema.MCPServer{
				"inherits": {Command: "x"},
				"declares": {Command: "x", Sandbox: &schema.Sandbox{Preset: schema.SandboxWorkspaceWrite, Network: &off}},
				"empty":    {Command: "x", Sandbox: &schema.Sandbox{}},
			},
		}}},
	}
	specs := map[string]Spec{}
	for _, s := range Specs(r) {
		specs[s.Name] = s
	}
	if p := specs["ext:inherits"].Permissions; p == nil || p == ro || p.Preset != schema.SandboxReadOnly {
		t.Fatalf("Specs should copy the manifest's permissions: %+v", p)
	}
	profile := schema.Sandbox{Preset: schema.SandboxReadOnly, Network: &on}
	env := sandbox.Env{Workspace: "/w"}
	cases := map[string]string{
		"own":          "workspace-write, no network", // its own, preset from the default
		"plain":        "read-only, network",          // the profile's sandbox.mcp
		"ext:inherits": "read-only, network",          // the extension's permissions
		"ext:declares": "workspace-write, no network", // its own over the extension's
		"ext:empty":    "read-only, network",          // an empty block declares nothing
	}
	for name, want := range cases {
		p, err := SandboxPolicy(profile, env)(specs[name])
		if err != nil || p.String() != want {
			t.Errorf("%s: %q %v, want %q", name, p.String(), err, want)
		}
	}
	// With no profile default, the built-in one.
	if p, _ := SandboxPolicy(schema.Sandbox{}, env)(specs["plain"]); p.String() != "workspace-write, network" {
		t.Errorf("default: %q", p.String())
	}
}

// Specs copies a server's roots and oauth block, with relative paths made
// the workspace's (an extension server's: the extension's) and "~/" the
// home directory's.
func TestSpecsRootsAndOAuth(t *testing.T) {
	home, _ := os.UserHomeDir()
	r := &schema.Resolved{Workspace: "/ws"}
	r.Profile.MCP.Servers = map[string]schema.MCPServer{
		"a": {Command: "x", Roots: []string{"docs", "/abs", "~/notes"}, OAuth: &schema.MCPOAuth{ClientID: "c", ClientSecretEnv: "S", Scopes: []string{"r"}, Grant: "client_credentials", PrivateKeyFile: "~/k.pem"}},
		"b": {Command: "y"},
	}
	specs := Specs(r)
	a, b := specs[0], specs[1]
	if got := strings.Join(a.Roots, ","); got != "/ws/docs,/abs,"+filepath.Join(home, "notes") {
		t.Errorf("roots %q", got)
	}
	if a.OAuth == nil || a.OAuth.ClientID != "c" || a.OAuth.ClientSecretEnv != "S" || a.OAuth.Grant != GrantClientCredentials || a.OAuth.PrivateKeyFile != filepath.Join(home, "k.pem") {
		t.Errorf("oauth %+v", a.OAuth)
	}
	if b.Roots != nil || b.OAuth != nil {
		t.Errorf("b %+v", b)
	}
}
