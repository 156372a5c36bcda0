package hooks

import "strings"

// Claude Code hook scripts know tools by Claude's names (Bash, Read,
// Edit, ...) and their arguments in Claude's shapes (file_path,
// old_string/new_string, offset/limit, ...). So that such scripts run
// unchanged, claude-dialect hooks see ollm's built-in tools under those
// names and shapes, MCP tools as mcp__<server>__<tool>, their matchers may
// use any of these names, and an updatedInput they return in Claude's
// shape is mapped back to ollm's arguments.

type claudeTool struct {
	name string
	keys map[string]string // ollm argument -> Claude argument, renamed as they are
	// drop are Claude's arguments ollm's tool does not have: an
	// updatedInput's are left out, as the tool refuses unknown arguments.
	drop []string
}

var claudeTools = map[string]claudeTool{
	"shell":          {name: "Bash", keys: map[string]string{"background": "run_in_background"}, drop: []string{"description", "dangerouslyDisableSandbox"}},
	"shell_output":   {name: "BashOutput", keys: map[string]string{"id": "bash_id"}, drop: []string{"filter"}},
	"shell_kill":     {name: "KillShell", keys: map[string]string{"id": "shell_id"}},
	"read_file":      {name: "Read", keys: map[string]string{"path": "file_path"}, drop: []string{"offset", "limit", "pages"}},
	"write_file":     {name: "Write", keys: map[string]string{"path": "file_path"}},
	"edit_file":      {name: "Edit", keys: map[string]string{"path": "file_path"}, drop: []string{"old_string", "new_string", "replace_all"}},
	"glob":           {name: "Glob"},
	"grep":           {name: "Grep", keys: map[string]string{"filePattern": "glob", "maxResults": "head_limit"}, drop: []string{"-i", "-n", "-A", "-B", "-C", "type", "output_mode", "multiline", "offset"}},
	"ls":             {name: "LS", drop: []string{"ignore"}},
	"web_fetch":      {name: "WebFetch", drop: []string{"prompt"}},
	"web_search":     {name: "WebSearch", drop: []string{"allowed_domains", "blocked_domains"}},
	"write_todos":    {name: "TodoWrite", drop: []string{"todos"}},
	"activate_skill": {name: "Skill", keys: map[string]string{"name": "skill"}, drop: []string{"args"}},
}

// ClaudeToolName is the name Claude Code knows an ollm tool by; tools it
// has no counterpart for keep their own name.
func ClaudeToolName(tool string) string {
	if t, ok := claudeTools[tool]; ok {
		return t.name
	}
	return tool
}

// MCPToolKey is the event-data key naming the MCP tool a call is for, as
// "server:tool" (the name policy rules use); the agent sets it on tool
// events, since the tool_name the model calls may be shortened.
const MCPToolKey = "mcp_tool"

// ClaudeMCPName is Claude Code's name of an MCP tool: mcp__<server>__<tool>,
// a plugin's server (ollm's <plugin>:<server>) as plugin_<plugin>_<server>.
func ClaudeMCPName(key string) string {
	i := strings.LastIndexByte(key, ':')
	if i <= 0 {
		return key
	}
	server, tool := key[:i], key[i+1:]
	if p, s, ok := strings.Cut(server, ":"); ok {
		server = "plugin_" + p + "_" + s
	}
	return "mcp__" + claudeNamePart(server) + "__" + claudeNamePart(tool)
}

// claudeNamePart keeps what Claude Code keeps of a server or tool name
// in a tool name: letters, digits, _ and -; others become _.
func claudeNamePart(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// claudeCallName is the name a claude-dialect hook sees for the tool call
// of data: an MCP tool's mcp__ name, Edit or MultiEdit by the number of
// edits, else ClaudeToolName.
func claudeCallName(data map[string]any) string {
	tool, _ := data["tool_name"].(string)
	if k, ok := data[MCPToolKey].(string); ok && k != "" {
		return ClaudeMCPName(k)
	}
	if tool == "edit_file" {
		if args, ok := data["args"].(map[string]any); ok {
			if edits, ok := args["edits"].([]any); ok && len(edits) > 1 {
				return "MultiEdit"
			}
		}
	}
	return ClaudeToolName(tool)
}

// claudeMatchNames are the names a claude-dialect matcher is tested
// against for the call of data besides ollm's own: the one the hook sees
// and, for an edit, both Edit and MultiEdit (a guard written for either
// runs: the union errs towards running the hook).
func claudeMatchNames(data map[string]any) []string {
	names := []string{claudeCallName(data)}
	if tool, _ := data["tool_name"].(string); tool == "edit_file" {
		names = append(names, "Edit", "MultiEdit")
	}
	return names
}

// claudeArgs maps a call's arguments to Claude's shape for a
// claude-dialect hook (toClaude) or an updatedInput back to ollm's.
// Arguments Claude does not have pass both ways unchanged; Claude's that
// ollm does not have are left out on the way back.
func claudeArgs(tool string, args map[string]any, toClaude bool) map[string]any {
	t, ok := claudeTools[tool]
	if !ok || args == nil {
		return args
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	if !toClaude {
		fromClaudeShape(tool, out) // before the drop: it reads some of them
		for _, k := range t.drop {
			delete(out, k)
		}
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
	if toClaude {
		toClaudeShape(tool, out)
	}
	return out
}

// toClaudeShape converts what renaming cannot: edits, line ranges, case
// sensitivity, todos.
func toClaudeShape(tool string, m map[string]any) {
	switch tool {
	case "edit_file":
		edits, ok := m["edits"].([]any)
		if !ok {
			return
		}
		if len(edits) == 1 {
			if e, ok := edits[0].(map[string]any); ok {
				delete(m, "edits")
				m["old_string"], m["new_string"], m["replace_all"] = e["oldText"], e["newText"], false
			}
			return
		}
		list := make([]any, len(edits))
		for i, x := range edits {
			e, _ := x.(map[string]any)
			list[i] = map[string]any{"old_string": e["oldText"], "new_string": e["newText"], "replace_all": false}
		}
		m["edits"] = list
	case "read_file":
		start, hasStart := number(m["startLine"])
		end, hasEnd := number(m["endLine"])
		delete(m, "startLine")
		delete(m, "endLine")
		if hasStart {
			m["offset"] = start
		}
		if hasEnd && end > 0 {
			if !hasStart || start < 1 {
				start = 1
			}
			m["limit"] = end - start + 1
		}
	case "grep":
		if cs, ok := m["caseSensitive"].(bool); ok {
			delete(m, "caseSensitive")
			m["-i"] = !cs
		}
	case "write_todos":
		action, _ := m["action"].(string)
		text, _ := m["text"].(string)
		status := map[string]string{"add": "pending", "complete": "completed"}[action]
		if status != "" {
			m["todos"] = []any{map[string]any{"content": text, "status": status, "activeForm": text}}
		}
	}
}

// fromClaudeShape converts an updatedInput in Claude's shape back (m is a
// copy): Edit's old_string/new_string and MultiEdit's edits to ollm's
// edits, Read's offset/limit to a line range, Grep's -i.
func fromClaudeShape(tool string, m map[string]any) {
	switch tool {
	case "edit_file":
		if _, ok := m["old_string"]; ok {
			m["edits"] = []any{map[string]any{"oldText": m["old_string"], "newText": m["new_string"]}}
			return
		}
		if edits, ok := m["edits"].([]any); ok {
			list := make([]any, len(edits))
			for i, x := range edits {
				e, _ := x.(map[string]any)
				if _, claude := e["old_string"]; claude {
					list[i] = map[string]any{"oldText": e["old_string"], "newText": e["new_string"]}
				} else {
					list[i] = x
				}
			}
			m["edits"] = list
		}
	case "read_file":
		off, hasOff := number(m["offset"])
		limit, hasLimit := number(m["limit"])
		if hasOff {
			m["startLine"] = off
		}
		if hasLimit && limit > 0 {
			if !hasOff || off < 1 {
				off = 1
			}
			m["endLine"] = off + limit - 1
		}
	case "grep":
		if ci, ok := m["-i"].(bool); ok {
			m["caseSensitive"] = !ci
		}
	}
}

// number reads a JSON number (float64 once decoded, int in Go callers).
func number(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		return int(n), true
	case int:
		return n, true
	case int64:
		return int(n), true
	}
	return 0, false
}
