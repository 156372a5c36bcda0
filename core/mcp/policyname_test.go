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
