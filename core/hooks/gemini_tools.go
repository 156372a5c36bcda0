package hooks

// Gemini CLI hook scripts know tools by Gemini's names (run_shell_command,
// replace, grep_search, ...) and file arguments as file_path or dir_path.
// So that such scripts run unchanged, gemini-dialect hooks see ollm's
// built-in tools under those names, their matchers may use either name,
// and what they return (tool_input, allowedFunctionNames) is mapped back.

type geminiTool struct {
	name string
	keys map[string]string // ollm argument -> Gemini argument
}

var geminiTools = map[string]geminiTool{
	"shell":           {name: "run_shell_command"},
	"read_file":       {name: "read_file", keys: map[string]string{"path": "file_path", "startLine": "start_line", "endLine": "end_line"}},
	"write_file":      {name: "write_file", keys: map[string]string{"path": "file_path"}},
	"edit_file":       {name: "replace", keys: map[string]string{"path": "file_path"}},
	"read_many_files": {name: "read_many_files", keys: map[string]string{"paths": "include"}},
	"glob":            {name: "glob", keys: map[string]string{"path": "dir_path"}},
	"grep":            {name: "grep_search", keys: map[string]string{"path": "dir_path"}},
	"ls":              {name: "list_directory", keys: map[string]string{"path": "dir_path"}},
	"web_fetch":       {name: "web_fetch"},
	"web_search":      {name: "google_web_search"},
	"memory":          {name: "save_memory"},
	"write_todos":     {name: "write_todos"},
	"activate_skill":  {name: "activate_skill"},
}

// geminiAliases are other names Gemini CLI has used for the same tools:
// names of older releases and the class names its settings accept.
var geminiAliases = map[string]string{
	"search_file_content": "grep", "ShellTool": "shell", "ReadFileTool": "read_file",
	"ReadManyFilesTool": "read_many_files", "WriteFileTool": "write_file", "EditTool": "edit_file",
	"GlobTool": "glob", "GrepTool": "grep", "LSTool": "ls", "WebFetchTool": "web_fetch",
	"WebSearchTool": "web_search", "MemoryTool": "memory", "WriteTodosTool": "write_todos",
}

var fromGemini = func() map[string]string {
	m := map[string]string{}
	for ours, t := range geminiTools {
		m[t.name] = ours
	}
	for theirs, ours := range geminiAliases {
		m[theirs] = ours
	}
	return m
}()

// GeminiToolName is the name Gemini CLI knows an ollm tool by; tools it
// has no counterpart for (MCP tools) keep their own name.
func GeminiToolName(tool string) string {
	if t, ok := geminiTools[tool]; ok {
		return t.name
	}
	return tool
}

// FromGeminiToolName is the ollm tool a Gemini CLI tool name (or class
// name) means; ok is false for a name Gemini does not have built in.
func FromGeminiToolName(name string) (string, bool) {
	ours, ok := fromGemini[name]
	return ours, ok
}

// ollmToolName maps a Gemini name back, leaving others alone.
func ollmToolName(name string) string {
	if ours, ok := fromGemini[name]; ok {
		return ours
	}
	return name
}

// geminiArgs renames tool arguments for a gemini-dialect hook (toGemini)
// or back from one. ollm's edit_file takes a list of edits; a single edit
// is shown as Gemini's old_string/new_string and read back from them.
func geminiArgs(tool string, args map[string]any, toGemini bool) map[string]any {
	t, ok := geminiTools[tool]
	if !ok || args == nil {
		return args
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	for ours, theirs := range t.keys {
		from, to := theirs, ours
		if toGemini {
			from, to = ours, theirs
		}
		if v, ok := out[from]; ok {
			delete(out, from)
			out[to] = v
		}
	}
	if tool == "edit_file" {
		if toGemini {
			if edits, ok := out["edits"].([]any); ok && len(edits) == 1 {
				if e, ok := edits[0].(map[string]any); ok {
					delete(out, "edits")
					out["old_string"], out["new_string"] = e["oldText"], e["newText"]
				}
			}
		} else if _, ok := out["old_string"]; ok {
			out["edits"] = []any{map[string]any{"oldText": out["old_string"], "newText": out["new_string"]}}
			delete(out, "old_string")
			delete(out, "new_string")
		}
	}
	return out
}

// geminiMessages is the conversation as Gemini CLI's hooks see it: text
// messages with the roles user, model and system. Tool calls and their
// results are not text parts and are left out, as Gemini does.
func geminiMessages(v any) any {
	list, ok := v.([]any)
	if !ok {
		if ms, ok := v.([]map[string]any); ok {
			for _, m := range ms {
				list = append(list, m)
			}
		} else {
			return v
		}
	}
	out := []any{}
	for _, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		role, _ := m["role"].(string)
		switch role {
		case "assistant":
			role = "model"
		case "user", "system", "model":
		default:
			continue
		}
		content, _ := m["content"].(string)
		if content == "" {
			continue
		}
		out = append(out, map[string]any{"role": role, "content": content})
	}
	return out
}

// geminiToolNames maps a list of tool names to Gemini's (toGemini) or back.
func geminiToolNames(v any, toGemini bool) any {
	var names []any
	switch l := v.(type) {
	case []any:
		names = l
	case []string:
		for _, s := range l {
			names = append(names, s)
		}
	default:
		return v
	}
	out := make([]any, len(names))
	for i, n := range names {
		s, ok := n.(string)
		switch {
		case !ok:
			out[i] = n
		case toGemini:
			out[i] = GeminiToolName(s)
		default:
			out[i] = ollmToolName(s)
		}
	}
	return out
}

// geminiVerdict maps what a gemini hook answered back onto ollm's names:
// tool_input to the tool's arguments, allowedFunctionNames to tool names.
func geminiVerdict(ev Event, data map[string]any, v Verdict) Verdict {
	switch ev {
	case BeforeTool:
		if args, ok := v.Data["args"].(map[string]any); ok {
			tool, _ := data["tool_name"].(string)
			v.Data["args"] = geminiArgs(tool, args, false)
		}
	case BeforeToolSelection:
		if names, ok := v.Data["available_tools"]; ok {
			// Gemini CLI unions the allowedFunctionNames of its hooks
			// (hookAggregator.ts); the fold does so for gemini hooks.
			delete(v.Data, "available_tools")
			if list, ok := geminiToolNames(names, false).([]any); ok && !v.NoTools {
				v.Allowed = list
			}
		}
	case BeforeModel, AfterModel:
		v = geminiModelVerdict(ev, data, v)
	}
	return v
}

// mergeGeminiMessages puts a BeforeModel hook's llm_request.messages
// back onto the conversation as Gemini CLI does (hookTranslator's
// fromHookLLMRequest): the hook saw only the messages with text, so each
// of those takes the hook's text and role in order, the others (tool
// results) stay as they were, and messages beyond the conversation are
// added at its end. A hook cannot drop messages this way.
func mergeGeminiMessages(base any, hook []any) []any {
	var list []map[string]any
	switch b := base.(type) {
	case []map[string]any:
		list = b
	case []any:
		for _, x := range b {
			if m, ok := x.(map[string]any); ok {
				list = append(list, m)
			}
		}
	}
	out := make([]any, 0, len(list)+len(hook))
	i := 0
	for _, m := range list {
		content, _ := m["content"].(string)
		role, _ := m["role"].(string)
		shown := content != "" && (role == "user" || role == "assistant" || role == "system" || role == "model")
		if !shown || i >= len(hook) {
			out = append(out, m)
			continue
		}
		c := make(map[string]any, len(m))
		for k, val := range m {
			c[k] = val
		}
		c["role"], c["content"] = hookMessage(hook[i], role)
		i++
		out = append(out, c)
	}
	for ; i < len(hook); i++ {
		role, content := hookMessage(hook[i], "user")
		out = append(out, map[string]any{"role": role, "content": content})
	}
	return out
}

// hookMessage is one of a Gemini hook's messages in ollm's roles.
func hookMessage(v any, role string) (string, string) {
	m, _ := v.(map[string]any)
	if r, ok := m["role"].(string); ok && r != "" {
		role = r
	}
	if role == "model" {
		role = "assistant"
	}
	content, _ := m["content"].(string)
	return role, content
}
