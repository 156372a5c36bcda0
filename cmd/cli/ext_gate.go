package cli

import (
	"fmt"
	"slices"

	"github.com/ollm/ollm/core/ext"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// extensionsOff maps each extension of r that a session would not
// activate to why: the session's own decision (ext.Manager.Off over the
// same profile, state file and environment), so `ollm mcp` and `ollm
// hooks` start no server and run no hook of an extension disabled by `ollm
// ext disable`, autoEnable: false, extensions.enable or a missing required
// setting.
func extensionsOff(home store.Home, r *schema.Resolved, getenv func(string) string) map[string]string {
	off := map[string]string{}
	if len(r.Extensions) == 0 {
		return off
	}
	m := ext.New(r, ext.Options{StateFile: home.ExtensionState(), LookupEnv: lookupEnv(getenv)})
	for _, x := range r.Extensions {
		if why := m.Off(x.Name); why != "" {
			off[x.Name] = why
		}
	}
	return off
}

// offServers marks the servers of the extensions in off as not running
// (mcp.Spec.Off), so they are listed as disabled with the reason.
func offServers(specs []mcp.Spec, off map[string]string) {
	for i := range specs {
		if why, ok := off[specs[i].Extension]; ok && specs[i].Extension != "" {
			specs[i].Off = fmt.Sprintf("extension %s is not enabled: %s", specs[i].Extension, why)
		}
	}
}

// withoutExtensions is a copy of r without the extensions in off.
func withoutExtensions(r *schema.Resolved, off map[string]string) *schema.Resolved {
	if len(off) == 0 {
		return r
	}
	c := *r
	c.Extensions = nil
	for _, x := range r.Extensions {
		if _, ok := off[x.Name]; !ok {
			c.Extensions = append(c.Extensions, x)
		}
	}
	return &c
}

// mcpServerAppears says, truthfully, when the server just added to a
// profile file shows in `ollm mcp list`: it loads what runs now, as every
// command does (the current generation, which profile.autoApply: "local"
// rebuilds from the edited file when it can), and looks for the server.
func mcpServerAppears(f *Factory, name string) string {
	r, err := f.LoadProfile()
	if err != nil {
		return fmt.Sprintf("`ollm mcp list` shows it once the profile loads (%s)", errSummary(err))
	}
	if _, ok := r.Profile.MCP.Servers[name]; ok {
		return "`ollm mcp list` shows it now, and the next session starts it"
	}
	if slices.Contains(r.Trust.HeldServers, name) {
		return "`ollm mcp list` shows it now as needs-approval: it starts once `ollm trust` approves the workspace"
	}
	n, _ := f.CurrentGeneration()
	return fmt.Sprintf("it is not in generation %d, which runs now: `ollm profile apply` makes a generation with it, then `ollm mcp list` shows it", n)
}

// heldExtensionSpecs are the MCP servers of the extensions an unapproved
// workspace holds back (r is the gated view), so `ollm mcp` lists them as
// needs-approval, as `ollm ext list` lists their extensions as held. Their
// scope (workspace or store) needs approval, so no Manager of an
// unapproved workspace starts them.
func heldExtensionSpecs(f *Factory, r *schema.Resolved) ([]mcp.Spec, error) {
	if len(r.Trust.HeldExtensions) == 0 || !r.Profile.MCP.Enabled {
		return nil, nil
	}
	u, err := f.LoadUngated()
	if err != nil {
		return nil, err
	}
	held := *u
	held.Profile.MCP.Servers = nil
	held.Extensions = nil
	for _, x := range u.Extensions {
		if slices.Contains(r.Trust.HeldExtensions, x.Name) {
			held.Extensions = append(held.Extensions, x)
		}
	}
	var out []mcp.Spec
	for _, s := range mcp.Specs(&held) {
		if s.Extension != "" && s.NeedsApproval() {
			out = append(out, s)
		}
	}
	return out, nil
}
