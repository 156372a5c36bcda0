package hooks

import (
	"encoding/json"
	"testing"
	"time"
)

// specHook is seed 003's Complete Hook (node), declared under name.
func specHook(t *testing.T, ev Event, declared string) *Hook {
	h := userHook(t, "spec", ev, "spec_complete_hook.js")
	h.Declared = declared
	return h
}

// TestSeed003CompleteHookRuns: the specification's own Complete Hook,
// which rejects an input without `context`, runs under ollm when it is
// declared under the specification's event names: it reads `event` as
// declared and `context.tool`, and its verdicts hold.
func TestSeed003CompleteHookRuns(t *testing.T) {
	e := newEngine(t, Options{Session: Session{ID: "sess-3", Cwd: t.TempDir()}}, specHook(t, BeforeTool, "pre-tool-call"))
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls"}})
	if out.Blocked || out.Results[0].Failure != "" {
		t.Fatalf("the spec's hook blocked or failed: %+v", out)
	}
	md, _ := out.Extra["metadata"].(map[string]any)
	if md["event"] != "pre-tool-call" || md["tool"] != "shell" {
		t.Fatalf("the hook read event %v, tool %v (metadata %v)", md["event"], md["tool"], md)
	}
	out = emit(t, e, BeforeTool, map[string]any{"tool_name": "shell", "args": map[string]any{"command": "rm -rf build"}})
	if !out.Blocked || out.Reason != "Dangerous operation detected" {
		t.Fatalf("rm -rf: %+v", out)
	}

	// Every other seed-003 event too, with whatever data it has.
	for _, c := range []struct {
		ev   Event
		name string
	}{{SessionStart, "on-session-start"}, {AfterTool, "post-tool-call"}, {BeforeAgent, "pre-execution"}, {OnGitCommit, "on-git-commit"}} {
		e := newEngine(t, Options{}, specHook(t, c.ev, c.name))
		out := emit(t, e, c.ev, map[string]any{})
		if out.Blocked || out.Results[0].Failure != "" {
			t.Errorf("%s: %+v", c.name, out)
		}
	}
}

// TestCanonicalInputHasNoSpecLayout: a hook declared under ollm's own
// name reads ollm's input only, so the spec's hook refuses it.
func TestCanonicalInputHasNoSpecLayout(t *testing.T) {
	data := map[string]any{"tool_name": "shell", "args": map[string]any{}}
	for _, declared := range []string{"", "before_tool", "pre-tool-call"} {
		raw, err := BuildInput(&Hook{Name: "h", Declared: declared}, BeforeTool, data, nil, Session{ID: "s"}, time.Now(), 0)
		if err != nil {
			t.Fatal(err)
		}
		var in map[string]any
		_ = json.Unmarshal(raw, &in)
		ctx, has := in["context"].(map[string]any)
		switch declared {
		case "pre-tool-call":
			if in["event"] != "pre-tool-call" || !has || ctx["tool"] != "shell" || ctx["tool_name"] != "shell" || in["data"] == nil {
				t.Errorf("declared %q: input %s", declared, raw)
			}
		default:
			if in["event"] != "before_tool" || has {
				t.Errorf("declared %q: input %s", declared, raw)
			}
		}
	}
	e := newEngine(t, Options{}, specHook(t, BeforeTool, "before_tool"))
	if out := emit(t, e, BeforeTool, data); !out.Blocked || out.Reason != "Error: Invalid input" {
		t.Fatalf("the spec's hook on ollm's layout: %+v", out)
	}
}
