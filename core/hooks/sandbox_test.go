package hooks

import (
	"slices"
	"testing"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/schema"
)

// A hook's sandbox: what it declares (its own, else its extension's),
// else the profile's sandbox.hooks, with sandbox.ProcessDefault for what
// is unset.
func TestSandboxPolicy(t *testing.T) {
	off, on := false, true
	profile := schema.Sandbox{Preset: schema.SandboxReadOnly, Network: &on}
	env := sandbox.Env{Workspace: "/w"}
	cases := []struct {
		name     string
		declared schema.Sandbox
		profile  schema.Sandbox
		want     string
	}{
		{"declares nothing", schema.Sandbox{}, profile, "read-only, network"},
		{"declares the network", schema.Sandbox{Network: &off}, profile, "workspace-write, no network"},
		{"declares a preset", schema.Sandbox{Preset: schema.SandboxOff}, profile, "no sandbox"},
		{"no profile default", schema.Sandbox{}, schema.Sandbox{}, "workspace-write, network"},
	}
	for _, c := range cases {
		p, err := SandboxPolicy(c.profile, env)(&Hook{Name: "h", Sandbox: c.declared})
		if err != nil || p.String() != c.want {
			t.Errorf("%s: %q %v, want %q", c.name, p.String(), err, c.want)
		}
	}
	p, _ := SandboxPolicy(schema.Sandbox{}, env)(&Hook{Sandbox: schema.Sandbox{Write: []string{"out"}}})
	if !slices.Contains(p.Write, "/w/out") {
		t.Errorf("declared write path: %v", p.Write)
	}
}
