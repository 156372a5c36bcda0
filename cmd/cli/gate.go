package cli

import (
	"fmt"
	"maps"
	"strings"

	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/schema"
)

// heldRules counts the allow rules of an unapproved workspace held back.
func heldRules(t schema.Trust) int {
	n := 0
	for _, h := range t.Held {
		if strings.HasPrefix(h.Field, "policy.rules[") {
			n++
		}
	}
	return n
}

// withHeldServers returns a copy of the gated profile g with the
// workspace's held MCP servers added back as workspace servers, so `ollm
// mcp` lists them as waiting for approval. Their definitions come from the
// ungated view; nothing else of it is taken, so an unapproved workspace
// still cannot change the user's own servers. The MCP manager starts no
// workspace server of an unapproved workspace.
func withHeldServers(f *Factory, g *schema.Resolved) (*schema.Resolved, error) {
	if len(g.Trust.HeldServers) == 0 || !g.Profile.MCP.Enabled {
		return g, nil
	}
	u, err := f.LoadUngated()
	if err != nil {
		return nil, err
	}
	c := *g
	c.Profile.MCP.Servers = maps.Clone(g.Profile.MCP.Servers)
	c.ServerScopes = maps.Clone(g.ServerScopes)
	if c.Profile.MCP.Servers == nil {
		c.Profile.MCP.Servers = map[string]schema.MCPServer{}
	}
	if c.ServerScopes == nil {
		c.ServerScopes = map[string]schema.Scope{}
	}
	for _, name := range g.Trust.HeldServers {
		s, ok := u.Profile.MCP.Servers[name]
		if !ok || u.ServerScopes[name] != schema.ScopeWorkspace {
			continue
		}
		if _, mine := c.Profile.MCP.Servers[name]; mine {
			continue
		}
		c.Profile.MCP.Servers[name], c.ServerScopes[name] = s, schema.ScopeWorkspace
	}
	return &c, nil
}

// warnHeld prints what an unapproved workspace had held back, for
// commands that do not print every problem: one line with the count, the
// files and `ollm trust`, or with -v each value with its file:line. With
// servers false, held servers are left out (a server table shows them as
// needs-approval).
func warnHeld(io *IOStreams, r *schema.Resolved, servers bool) {
	var held []schema.Problem
	for _, p := range r.Problems {
		if !servers && (strings.Contains(p.Message, ".mcp.json servers held back") || strings.Contains(p.Message, " mcp.servers held back")) {
			continue
		}
		if runtime.IsHeld(p) {
			held = append(held, p)
		}
	}
	printHeld(io, held, r.Workspace)
}

// printHeld prints problems as printProblems does, except that the values
// an unapproved workspace holds back are one line (runtime.HeldLine),
// after the others, unless -v asks for each. root is the workspace's
// root, which the line names the files against.
func printHeld(io *IOStreams, ps []schema.Problem, root string) {
	if io.Verbose {
		printProblems(io.ErrOut, ps)
		return
	}
	held, rest := runtime.SplitHeld(ps)
	printProblems(io.ErrOut, rest)
	if len(held) > 0 {
		fmt.Fprintf(io.ErrOut, "warning: %s\n", runtime.HeldLine(held, root))
	}
}
