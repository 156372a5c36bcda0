//go:build linux

package hooks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/schema"
)

// A shell: bash hook runs under its sandbox like any other: it writes in
// the workspace and not outside.
func TestHookShellSandboxed(t *testing.T) {
	b := newSandboxBox(t)
	h := &Hook{Name: "b", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Name: "b", Shell: "bash",
		Command: `[[ -d "$WS" ]] && echo in > "$WS/inside.txt"; echo out > "$OUTSIDE/outside.txt"; exit 0`,
		Env:     map[string]string{"WS": b.ws, "OUTSIDE": b.outside}}}
	e := b.engine(t, Options{Sandbox: b.policy(schema.Sandbox{})}, h)
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
	if r := out.Results[0]; r.Failure != "" {
		t.Fatalf("bash hook failed: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(b.ws, "inside.txt")); err != nil {
		t.Errorf("the sandboxed bash hook did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(b.outside, "outside.txt")); err == nil {
		t.Error("the sandboxed bash hook wrote outside the workspace")
	}
}
