package profiles

import (
	"slices"
	"testing"

	"github.com/ollm/ollm/schema"
)

// Before approval a workspace may narrow the sandbox, never widen it: off,
// network and extra paths are held, read-only, no network, denyRead and
// required: true apply.
func TestUnapprovedWorkspaceNarrowsTheSandbox(t *testing.T) {
	e := newEnv(t)
	e.write("ws/ollm.cue", `
sandbox: {
	denyRead: ["/srv/secrets"]
	shell: {preset: "off", network: true, read: ["/"]}
	hooks: {preset: "read-only", network: false}
	mcp: {preset: "workspace-write", write: ["/"]}
}
`)
	r, err := Load(gatedOpts(e))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sandbox.shell.preset", "sandbox.shell.network", "sandbox.shell.read", "sandbox.mcp.write"}
	if got := heldFields(r); !slices.Equal(got, want) {
		t.Errorf("held = %q\nwant   %q", got, want)
	}
	sb := r.Profile.Sandbox
	if !sb.Shell.IsZero() {
		t.Errorf("shell = %+v, want nothing from the workspace", sb.Shell)
	}
	if sb.Hooks.Preset != schema.SandboxReadOnly || sb.Hooks.Network == nil || *sb.Hooks.Network {
		t.Errorf("hooks = %+v, want read-only without network", sb.Hooks)
	}
	if sb.MCP.Preset != schema.SandboxWorkspaceWrite || len(sb.MCP.Write) != 0 {
		t.Errorf("mcp = %+v", sb.MCP)
	}
	if !slices.Equal(sb.DenyRead, []string{"/srv/secrets"}) || sb.Required {
		t.Errorf("denyRead %v required %v", sb.DenyRead, sb.Required)
	}

	// Approved, the widening values apply too.
	approve(t, e, r.Trust.Digest)
	a, err := Load(gatedOpts(e))
	if err != nil {
		t.Fatal(err)
	}
	if s := a.Profile.Sandbox.Shell; s.Preset != schema.SandboxOff || s.Network == nil || !*s.Network || len(s.Read) != 1 {
		t.Errorf("approved shell = %+v", s)
	}
}

func TestUnapprovedWorkspaceSandboxRequired(t *testing.T) {
	for _, c := range []struct {
		src  string
		held bool
		want bool
	}{
		{"sandbox: required: true\n", false, true},
		{"sandbox: required: false\n", false, false}, // the builtin's own value
		{"sandbox: shell: preset: \"read-only\"\n", false, false},
		{"sandbox: shell: network: false\n", false, false},
	} {
		e := newEnv(t)
		e.write("ws/ollm.cue", c.src)
		r, err := Load(gatedOpts(e))
		if err != nil {
			t.Fatal(err)
		}
		if held := len(r.Trust.Held) > 0; held != c.held || r.Profile.Sandbox.Required != c.want {
			t.Errorf("%q: held %v required %v, want held %v required %v", c.src, heldFields(r), r.Profile.Sandbox.Required, c.held, c.want)
		}
	}
}

// A manifest's permissions and a hook's or server's own sandbox decode.
func TestManifestPermissions(t *testing.T) {
	e := newEnv(t)
	e.write("home/extensions/x/manifest.json", manifestJSON("x", `
"permissions": {"preset": "read-only", "network": false, "read": ["${extensionPath}/data"]},
"hooks": {"before_tool": [{"name": "h", "command": "true", "sandbox": {"preset": "off"}}]},
"mcpServers": {"s": {"command": "true", "sandbox": {"network": true}}}`))
	e.write("home/extensions/bad/manifest.json", manifestJSON("bad", `"permissions": {"preset": "none"}`))
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	var x *schema.Extension
	for i := range r.Extensions {
		if r.Extensions[i].Name == "x" {
			x = &r.Extensions[i]
		}
		if r.Extensions[i].Name == "bad" {
			t.Errorf("a manifest with an unknown preset loaded")
		}
	}
	if x == nil {
		t.Fatalf("extension x not loaded: %+v", r.Problems)
	}
	p := x.Manifest.Permissions
	if p == nil || p.Preset != schema.SandboxReadOnly || p.Network == nil || *p.Network || !slices.Equal(p.Read, []string{"${extensionPath}/data"}) {
		t.Errorf("permissions = %+v", p)
	}
	if h := x.Manifest.Hooks["before_tool"][0].Sandbox; h == nil || h.Preset != schema.SandboxOff {
		t.Errorf("hook sandbox = %+v", h)
	}
	if s := x.Manifest.MCPServers["s"].Sandbox; s == nil || s.Network == nil || !*s.Network {
		t.Errorf("server sandbox = %+v", s)
	}
}

func TestSandboxTrustClasses(t *testing.T) {
	table, err := trustClasses()
	if err != nil {
		t.Fatal(err)
	}
	for p, kind := range map[string]string{
		"sandbox.required": classWiden, "sandbox.denyRead": classNarrow, "sandbox.allowRead": classWiden,
		"sandbox.shell.preset": classWiden, "sandbox.hooks.network": classWiden, "sandbox.mcp.read": classWiden, "sandbox.mcp.write": classWiden,
	} {
		if c, ok := table.class[p]; !ok || c.kind != kind {
			t.Errorf("%s = %+v, want %s", p, c, kind)
		}
	}
	if u := table.class["sandbox.shell.preset"].unless; !slices.Equal(u, []string{schema.SandboxReadOnly, schema.SandboxWorkspaceWrite}) {
		t.Errorf("preset applies before approval for %q", u)
	}
}
