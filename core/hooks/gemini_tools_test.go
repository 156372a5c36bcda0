package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ollm/ollm/schema"
)

// geminiHook is a trusted gemini-dialect hook running a python3 script.
func geminiHook(t *testing.T, name string, ev Event, matcher, code string) *Hook {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".py")
	if err := os.WriteFile(p, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	return &Hook{Name: name, Event: ev, Scope: schema.ScopeUser,
		Def: schema.Hook{Name: name, Command: "python3", Args: []string{p}, Matcher: matcher, Dialect: DialectGemini}}
}

// A Gemini CLI BeforeTool script written for run_shell_command fires on
// ollm's shell, reads Gemini's names and rewrites the call with them.
func TestGeminiToolNamesBothWays(t *testing.T) {
	shell := geminiHook(t, "shell", BeforeTool, "run_shell_command", `
import json, sys
i = json.load(sys.stdin)
assert i["hook_event_name"] == "BeforeTool", i
assert i["tool_name"] == "run_shell_command", i
cmd = i["tool_input"]["command"]
print(json.dumps({"hookSpecificOutput": {"tool_input": {"command": cmd.replace("rm -rf", "rm -r")}}}))
`)
	edit := geminiHook(t, "edit", BeforeTool, "replace|write_file", `
import json, sys
i = json.load(sys.stdin)
ti = i["tool_input"]
assert i["tool_name"] == "replace" and ti["file_path"] == "a.go" and ti["old_string"] == "x", i
ti["new_string"] = ti["new_string"] + " // reviewed"
print(json.dumps({"hookSpecificOutput": {"tool_input": ti}}))
`)
	e := newEngine(t, Options{}, shell, edit)
	out, err := e.Emit(context.Background(), BeforeTool, map[string]any{"tool_name": "shell", "args": map[string]any{"command": "rm -rf build"}})
	if err != nil || len(out.Results) != 1 || out.Results[0].Failure != "" {
		t.Fatalf("shell: %v %+v", err, out.Results)
	}
	if got := out.Data["args"]; !reflect.DeepEqual(got, map[string]any{"command": "rm -r build"}) {
		t.Fatalf("shell args %v", got)
	}
	out, _ = e.Emit(context.Background(), BeforeTool, map[string]any{"tool_name": "edit_file",
		"args": map[string]any{"path": "a.go", "edits": []any{map[string]any{"oldText": "x", "newText": "y"}}}})
	if len(out.Results) != 1 || out.Results[0].Failure != "" {
		t.Fatalf("edit: %+v", out.Results)
	}
	want := map[string]any{"path": "a.go", "edits": []any{map[string]any{"oldText": "x", "newText": "y // reviewed"}}}
	if got := out.Data["args"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("edit args %v, want %v", got, want)
	}
}

// BeforeToolSelection: llm_request carries the model and the messages,
// and allowedFunctionNames in Gemini's names keeps those tools.
func TestGeminiToolSelection(t *testing.T) {
	h := geminiHook(t, "sel", BeforeToolSelection, "", `
import json, sys
i = json.load(sys.stdin)
r = i["llm_request"]
assert r["model"] == "qwen3:8b", r
assert r["messages"] == [{"role": "user", "content": "fix it"}, {"role": "model", "content": "ok"}], r
assert "run_shell_command" in r["toolConfig"]["allowedFunctionNames"], r
print(json.dumps({"hookSpecificOutput": {"toolConfig": {"allowedFunctionNames": ["read_file", "run_shell_command", "replace"]}}}))
`)
	e := newEngine(t, Options{}, h)
	out, _ := e.Emit(context.Background(), BeforeToolSelection, map[string]any{
		"available_tools": []string{"read_file", "write_file", "edit_file", "shell", "web_fetch"},
		"model":           "qwen3:8b",
		"messages": []map[string]any{{"role": "system", "content": ""}, {"role": "user", "content": "fix it"},
			{"role": "assistant", "content": "ok"}, {"role": "tool", "content": "result"}},
	})
	if len(out.Results) != 1 || out.Results[0].Failure != "" {
		t.Fatalf("%+v", out.Results)
	}
	if got, want := out.Data["available_tools"], []any{"read_file", "edit_file", "shell"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("available_tools %v, want %v", got, want)
	}
}

// Several Gemini BeforeToolSelection hooks: their allowedFunctionNames
// are a union (Gemini CLI's hookAggregator), which an ollm hook's
// narrowing still bounds; mode NONE wins over every list.
func TestGeminiToolSelectionUnion(t *testing.T) {
	allow := func(name string, names ...string) *Hook {
		list, _ := json.Marshal(names)
		return geminiHook(t, name, BeforeToolSelection, "", `
import json
print(json.dumps({"hookSpecificOutput": {"toolConfig": {"mode": "ANY", "allowedFunctionNames": `+string(list)+`}}}))
`)
	}
	narrow := &Hook{Name: "narrow", Event: BeforeToolSelection, Scope: schema.ScopeUser,
		Def: schema.Hook{Name: "narrow", Command: "sh", Args: []string{"-c", `echo '{"data": {"available_tools": ["read_file", "shell", "web_fetch"]}}'`}}}
	none := geminiHook(t, "none", BeforeToolSelection, "", `print('{"hookSpecificOutput": {"toolConfig": {"mode": "NONE"}}}')`)
	offered := map[string]any{"available_tools": []string{"read_file", "write_file", "edit_file", "shell", "web_fetch"}}
	for _, tt := range []struct {
		name  string
		hooks []*Hook
		want  []any
	}{
		{"union", []*Hook{allow("a", "read_file"), allow("b", "run_shell_command", "replace")}, []any{"read_file", "edit_file", "shell"}},
		{"ollm hook narrows the union", []*Hook{allow("a", "read_file", "replace"), narrow, allow("b", "run_shell_command")}, []any{"read_file", "shell"}},
		{"NONE wins", []*Hook{allow("a", "read_file"), none, allow("b", "run_shell_command")}, []any{}},
	} {
		out, _ := newEngine(t, Options{}, tt.hooks...).Emit(context.Background(), BeforeToolSelection, offered)
		if got := out.Data["available_tools"]; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: available_tools %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestGeminiNames(t *testing.T) {
	for ours, theirs := range map[string]string{"shell": "run_shell_command", "edit_file": "replace", "grep": "grep_search",
		"ls": "list_directory", "web_search": "google_web_search", "memory": "save_memory", "github__x": "github__x"} {
		if got := GeminiToolName(ours); got != theirs {
			t.Errorf("GeminiToolName(%s) = %s, want %s", ours, got, theirs)
		}
		if got := ollmToolName(theirs); got != ours {
			t.Errorf("back from %s = %s, want %s", theirs, got, ours)
		}
	}
	if got, _ := FromGeminiToolName("search_file_content"); got != "grep" {
		t.Errorf("older name search_file_content = %q", got)
	}
}

// A BeforeModel hook's llm_request.messages go back as Gemini CLI puts
// them back: text onto the messages the hook saw, in order; tool calls
// and results kept; extra messages at the end.
func TestMergeGeminiMessages(t *testing.T) {
	base := []map[string]any{
		{"role": "system", "content": "sys"},
		{"role": "user", "content": "use TOKEN"},
		{"role": "assistant", "content": "", "tool_calls": []map[string]any{{"id": "c1", "name": "shell"}}},
		{"role": "tool", "content": "out", "tool_name": "shell", "tool_call_id": "c1"},
		{"role": "assistant", "content": "done"},
	}
	hook := []any{
		map[string]any{"role": "system", "content": "sys"},
		map[string]any{"role": "user", "content": "use [redacted]"},
		map[string]any{"role": "model", "content": "done."},
		map[string]any{"role": "user", "content": "and one more thing"},
	}
	got := mergeGeminiMessages(base, hook)
	want := []any{
		map[string]any{"role": "system", "content": "sys"},
		map[string]any{"role": "user", "content": "use [redacted]"},
		base[2], base[3],
		map[string]any{"role": "assistant", "content": "done."},
		map[string]any{"role": "user", "content": "and one more thing"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged:\n got %v\nwant %v", got, want)
	}
	v := geminiVerdict(BeforeModel, map[string]any{"messages": base},
		Interpret(DialectGemini, BeforeModel, RunOutput{Stdout: []byte(`{"hookSpecificOutput": {"llm_request": {"messages": [{"role": "user", "content": "x"}]}}}`)}))
	if _, ok := v.Data["llm_request"]; ok || len(v.Data["messages"].([]any)) != len(base) {
		t.Errorf("verdict data %v", v.Data)
	}
}
