package hooks

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every built-in tool's arguments as a claude-dialect hook sees them, and
// an updatedInput in Claude's shape as ollm's tool gets it back.
func TestClaudeArgsTable(t *testing.T) {
	edit := func(o, n string) map[string]any { return map[string]any{"oldText": o, "newText": n} }
	cedit := func(o, n string) map[string]any {
		return map[string]any{"old_string": o, "new_string": n, "replace_all": false}
	}
	cases := []struct {
		tool, name string
		ours       map[string]any // what ollm's tool takes
		claude     map[string]any // what the hook sees
	}{
		{"shell", "Bash", map[string]any{"command": "ls", "timeout": 5000, "background": true, "directory": "d"},
			map[string]any{"command": "ls", "timeout": 5000, "run_in_background": true, "directory": "d"}},
		{"shell_output", "BashOutput", map[string]any{"id": "1", "wait": 3}, map[string]any{"bash_id": "1", "wait": 3}},
		{"shell_kill", "KillShell", map[string]any{"id": "1"}, map[string]any{"shell_id": "1"}},
		{"read_file", "Read", map[string]any{"path": "/a", "startLine": 10, "endLine": 19},
			map[string]any{"file_path": "/a", "offset": 10, "limit": 10}},
		{"read_file", "Read", map[string]any{"path": "/a"}, map[string]any{"file_path": "/a"}},
		{"write_file", "Write", map[string]any{"path": "/a", "content": "x", "overwrite": true},
			map[string]any{"file_path": "/a", "content": "x", "overwrite": true}},
		{"edit_file", "Edit", map[string]any{"path": "/a", "edits": []any{edit("x", "y")}},
			map[string]any{"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": false}},
		{"edit_file", "MultiEdit", map[string]any{"path": "/a", "edits": []any{edit("x", "y"), edit("p", "q")}},
			map[string]any{"file_path": "/a", "edits": []any{cedit("x", "y"), cedit("p", "q")}}},
		{"grep", "Grep", map[string]any{"pattern": "p", "path": "d", "filePattern": "*.go", "caseSensitive": false, "maxResults": 5},
			map[string]any{"pattern": "p", "path": "d", "glob": "*.go", "-i": true, "head_limit": 5}},
		{"glob", "Glob", map[string]any{"pattern": "**/*.go", "path": "d"}, map[string]any{"pattern": "**/*.go", "path": "d"}},
		{"ls", "LS", map[string]any{"path": "/d", "recursive": true}, map[string]any{"path": "/d", "recursive": true}},
		{"web_fetch", "WebFetch", map[string]any{"url": "https://example.com"}, map[string]any{"url": "https://example.com"}},
		{"web_search", "WebSearch", map[string]any{"query": "q", "numResults": 3}, map[string]any{"query": "q", "numResults": 3}},
		{"activate_skill", "Skill", map[string]any{"name": "pdf"}, map[string]any{"skill": "pdf"}},
		{"write_todos", "TodoWrite", map[string]any{"action": "add", "text": "t"},
			map[string]any{"action": "add", "text": "t", "todos": []any{map[string]any{"content": "t", "status": "pending", "activeForm": "t"}}}},
		{"Task", "Task", map[string]any{"subagent_type": "a", "description": "d", "prompt": "p"},
			map[string]any{"subagent_type": "a", "description": "d", "prompt": "p"}},
		{"memory", "memory", map[string]any{"action": "set"}, map[string]any{"action": "set"}},
	}
	for _, c := range cases {
		data := map[string]any{"tool_name": c.tool, "args": c.ours}
		if got := claudeCallName(data); got != c.name {
			t.Errorf("%s: hook sees the name %q, want %q", c.tool, got, c.name)
		}
		got := claudeArgs(c.tool, c.ours, true)
		if !reflect.DeepEqual(got, c.claude) {
			t.Errorf("%s to Claude:\n got %#v\nwant %#v", c.tool, got, c.claude)
		}
		back := claudeArgs(c.tool, c.claude, false)
		if !reflect.DeepEqual(back, c.ours) {
			t.Errorf("%s back from Claude:\n got %#v\nwant %#v", c.tool, back, c.ours)
		}
	}
}

// An updatedInput written by hand in Claude's shape, with Claude's own
// arguments ollm's tools do not take (they refuse unknown arguments).
func TestClaudeUpdatedInputBack(t *testing.T) {
	cases := []struct {
		tool   string
		claude map[string]any
		ours   map[string]any
	}{
		{"shell", map[string]any{"command": "ls", "description": "list", "run_in_background": false},
			map[string]any{"command": "ls", "background": false}},
		{"edit_file", map[string]any{"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": true},
			map[string]any{"path": "/a", "edits": []any{map[string]any{"oldText": "x", "newText": "y"}}}},
		{"edit_file", map[string]any{"file_path": "/a", "edits": []any{map[string]any{"old_string": "x", "new_string": "y"}}},
			map[string]any{"path": "/a", "edits": []any{map[string]any{"oldText": "x", "newText": "y"}}}},
		{"read_file", map[string]any{"file_path": "/a", "offset": float64(5), "limit": float64(2)},
			map[string]any{"path": "/a", "startLine": 5, "endLine": 6}},
		{"read_file", map[string]any{"file_path": "/a", "limit": float64(3)},
			map[string]any{"path": "/a", "endLine": 3}},
		{"grep", map[string]any{"pattern": "p", "output_mode": "content", "-n": true, "-i": false, "type": "go"},
			map[string]any{"pattern": "p", "caseSensitive": true}},
		{"web_fetch", map[string]any{"url": "u", "prompt": "summarise"}, map[string]any{"url": "u"}},
		{"web_search", map[string]any{"query": "q", "allowed_domains": []any{"a"}}, map[string]any{"query": "q"}},
		{"ls", map[string]any{"path": "/d", "ignore": []any{"x"}}, map[string]any{"path": "/d"}},
	}
	for _, c := range cases {
		if got := claudeArgs(c.tool, c.claude, false); !reflect.DeepEqual(got, c.ours) {
			t.Errorf("%s back from Claude:\n got %#v\nwant %#v", c.tool, got, c.ours)
		}
	}
}

func TestClaudeMCPName(t *testing.T) {
	for key, want := range map[string]string{
		"everything:echo":     "mcp__everything__echo",
		"guard:notes:lookup":  "mcp__plugin_guard_notes__lookup",
		"my.server:do thing":  "mcp__my_server__do_thing",
		"github:create_issue": "mcp__github__create_issue",
		"no-colon":            "no-colon",
	} {
		if got := ClaudeMCPName(key); got != want {
			t.Errorf("ClaudeMCPName(%q) = %q, want %q", key, got, want)
		}
	}
}

// A real Claude Code hook process, matcher "Edit", blocks an edit by its
// old_string (exit code 2), whether the call has one edit (Edit) or
// several (MultiEdit), and lets other edits through.
func TestClaudeHookBlocksEditByOldString(t *testing.T) {
	logf := filepath.Join(t.TempDir(), "log")
	t.Setenv("EVENT_LOG", logf)
	g := userHook(t, "guard", BeforeTool, "claude_edit_guard.py")
	g.Def.Dialect, g.Def.Matcher = DialectClaude, "Edit"
	e := newEngine(t, Options{}, g)
	edit := func(o string) map[string]any { return map[string]any{"oldText": o, "newText": "z"} }

	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "edit_file",
		"args": map[string]any{"path": "/w/main.go", "edits": []any{edit("x := 1 // PROTECTED")}}})
	if !out.Blocked || !strings.Contains(out.Reason, "edit of a PROTECTED line in /w/main.go") {
		t.Fatalf("the Edit guard did not block by old_string: %+v", out)
	}
	out = emit(t, e, BeforeTool, map[string]any{"tool_name": "edit_file",
		"args": map[string]any{"path": "/w/main.go", "edits": []any{edit("a"), edit("PROTECTED b")}}})
	if !out.Blocked {
		t.Fatalf("the Edit guard did not block a MultiEdit: %+v", out)
	}
	out = emit(t, e, BeforeTool, map[string]any{"tool_name": "edit_file",
		"args": map[string]any{"path": "/w/main.go", "edits": []any{edit("free")}}})
	if out.Blocked || len(out.Results) != 1 {
		t.Fatalf("the Edit guard blocked a free edit or did not run: %+v", out)
	}
	seen, _ := os.ReadFile(logf)
	want := `Edit {"file_path": "/w/main.go", "new_string": "z", "old_string": "x := 1 // PROTECTED", "replace_all": false}`
	if !strings.Contains(string(seen), want+"\n") || !strings.Contains(string(seen), "\nMultiEdit {") {
		t.Fatalf("the hook saw:\n%s\nwant a line %s and a MultiEdit", seen, want)
	}
}

// A claude-dialect matcher mcp__server__tool selects that MCP tool,
// whatever short name the model calls it by, and the hook sees that name.
func TestClaudeMCPMatcher(t *testing.T) {
	logf := filepath.Join(t.TempDir(), "log")
	t.Setenv("EVENT_LOG", logf)
	g := userHook(t, "guard", BeforeTool, "claude_edit_guard.py")
	g.Def.Dialect, g.Def.Matcher = DialectClaude, "mcp__everything__echo"
	e := newEngine(t, Options{}, g)
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "echo", MCPToolKey: "everything:echo",
		"args": map[string]any{"message": "hi"}})
	if len(out.Results) != 1 {
		t.Fatalf("the mcp__everything__echo matcher did not run: %+v", out)
	}
	out = emit(t, e, BeforeTool, map[string]any{"tool_name": "echo", MCPToolKey: "other:echo",
		"args": map[string]any{"message": "hi"}})
	if len(out.Results) != 0 {
		t.Fatalf("the matcher ran for another server's echo: %+v", out)
	}
	seen, _ := os.ReadFile(logf)
	if string(seen) != `mcp__everything__echo {"message": "hi"}`+"\n" {
		t.Fatalf("the hook saw %q", seen)
	}
}
