package profiles

import (
	"slices"
	"testing"
)

// A cwd override and the context file names are widening: an unapproved
// workspace's are held back, each named.
func TestUnapprovedWorkspaceCwdOverrideAndContextFiles(t *testing.T) {
	e := newEnv(t)
	e.write("ws/ollm.cue", `
mcp: overrides: "gem:files": {cwd: "/", excludeTools: ["write_file"]}
agent: contextFiles: [".env"]
`)
	r, err := Load(gatedOpts(e))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := heldFields(r), []string{"mcp.overrides.gem:files.cwd", "agent.contextFiles"}; !slices.Equal(got, want) {
		t.Errorf("held = %q, want %q", got, want)
	}
	o := r.Profile.MCP.Overrides["gem:files"]
	if o.Cwd != "" || !slices.Equal(o.ExcludeTools, []string{"write_file"}) || len(r.Profile.Agent.ContextFiles) != 0 {
		t.Errorf("override %+v, contextFiles %v", o, r.Profile.Agent.ContextFiles)
	}
}
