package mcp

import (
	"testing"
	"time"
)

// The policy judges an MCP tool as "server:tool" whatever the model calls it.
func TestPolicyNameIsServerColonTool(t *testing.T) {
	m := startManager(t, []Spec{faultSpec(t, "good", "normal")}, Options{ConnectionTimeout: 5 * time.Second, LogDir: t.TempDir()})
	tl := mustLookup(t, m, "echo")
	pn, ok := tl.(interface{ PolicyName() string })
	if !ok || pn.PolicyName() != "good:echo" {
		t.Fatalf("PolicyName of %s = %v", tl.Name(), pn)
	}
}

// Gemini CLI extensions write ${/} for the path separator.
func TestGeminiPathSeparator(t *testing.T) {
	s := Spec{Name: "gem:clock", Dir: "/x/gem", Config: Config{Command: "node", Args: []string{"${extensionPath}${/}clock.js"}, Enabled: true}}
	x := ExpandServer(s.Name, s.Config, nil, nil, s.vars(&Options{}))
	if len(x.Args) != 1 || x.Args[0] != "/x/gem/clock.js" || len(x.Warnings) != 0 {
		t.Errorf("args %q warnings %q", x.Args, x.Warnings)
	}
}
