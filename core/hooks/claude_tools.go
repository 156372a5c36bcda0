package hooks

// Claude Code hook scripts know tools by Claude's names (Bash, Read,
// Write, ...) and file arguments as file_path. So that such scripts run
// unchanged, claude-dialect hooks see ollm's built-in tools under those
// names, their matchers may use them, and an updatedInput they return is
// mapped back.

type claudeTool struct {
	name string
	keys map[string]string // ollm argument -> Claude argument
}

var claudeTools = map[string]claudeTool{
	"shell":       {name: "Bash"},
	"read_file":   {name: "Read", keys: map[string]string{"path": "file_path"}},
	"write_file":  {name: "Write", keys: map[string]string{"path": "file_path"}},
	"edit_file":   {name: "Edit", keys: map[string]string{"path": "file_path"}},
	"glob":        {name: "Glob"},
	"grep":        {name: "Grep"},
	"ls":          {name: "LS"},
	"web_fetch":   {name: "WebFetch"},
	"web_search":  {name: "WebSearch"},
	"write_todos": {name: "TodoWrite"},
}

// ClaudeToolName is the name Claude Code knows an ollm tool by; tools it
// has no counterpart for keep their own name.
func ClaudeToolName(tool string) string {
	if t, ok := claudeTools[tool]; ok {
		return t.name
	}
	return tool
}

// claudeArgs renames tool arguments for a claude-dialect hook (toClaude)
// or back from one.
func claudeArgs(tool string, args map[string]any, toClaude bool) map[string]any {
	t, ok := claudeTools[tool]
	if !ok || len(t.keys) == 0 || args == nil {
		return args
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	for ours, theirs := range t.keys {
		from, to := theirs, ours
		if toClaude {
			from, to = ours, theirs
		}
		if v, ok := out[from]; ok {
			delete(out, from)
			out[to] = v
		}
	}
	return out
}
