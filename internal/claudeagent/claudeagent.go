package claudeagent

import (
	"errors"
	"fmt"
	"github.com/ollm/ollm/internal/lazyre"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ollm/ollm/schema"
)

// TaskTool is the name of ollm's tool that delegates to a subagent, the
// name Claude Code gives its own.
const TaskTool = "Task"

// tools maps Claude Code's tool names to ollm's.
var tools = map[string][]string{
	"Bash": {"shell", "shell_output", "shell_kill"}, "BashOutput": {"shell_output"},
	"KillShell": {"shell_kill"}, "KillBash": {"shell_kill"},
	"Read": {"read_file", "read_many_files"}, "NotebookRead": {"read_file"},
	"Write": {"write_file"}, "Edit": {"edit_file"}, "MultiEdit": {"edit_file"},
	"Glob": {"glob"}, "Grep": {"grep"}, "LS": {"ls"},
	"WebFetch": {"web_fetch"}, "WebSearch": {"web_search"}, "TodoWrite": {"write_todos"},
	"Skill": {"activate_skill"}, "Task": {TaskTool}, "Agent": {TaskTool},
}

// builtins are ollm's own tool names, which an agent may name too.
var builtins = []string{"read_file", "read_many_files", "write_file", "edit_file", "shell", "shell_output",
	"shell_kill", "grep", "glob", "ls", "web_fetch", "web_search", "memory", "write_todos", "activate_skill", TaskTool}

// Aliases are the model names Claude Code agents use that are not models
// ollm can ask for: agent.subagents.models maps them, else the session's
// model answers.
var Aliases = []string{"inherit", "sonnet", "opus", "haiku"}

// IsAlias reports whether model is one of Aliases or a Claude model id.
func IsAlias(model string) bool {
	for _, a := range Aliases {
		if model == a {
			return true
		}
	}
	return strings.HasPrefix(model, "claude-")
}

// Warning is one part of an agent file ollm does not honour.
type Warning struct {
	File    string
	Field   string
	Message string
}

func (w Warning) String() string {
	if w.Field == "" {
		return fmt.Sprintf("%s: %s", w.File, w.Message)
	}
	return fmt.Sprintf("%s: %s: %s", w.File, w.Field, w.Message)
}

var namePattern = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Parse reads one agent file. An error means the file is no usable agent
// (no name, description or prompt); warnings name what was left out.
func Parse(file string, data []byte) (schema.Subagent, []Warning, error) {
	meta, order, body, err := frontMatter(string(data))
	if err != nil {
		return schema.Subagent{}, nil, err
	}
	a := schema.Subagent{File: file, Prompt: strings.TrimSpace(body)}
	a.Name = scalar(meta["name"])
	if a.Name == "" {
		a.Name = strings.TrimSuffix(filepath.Base(file), ".md")
	}
	if !namePattern.MatchString(a.Name) {
		return a, nil, fmt.Errorf("name %q must match %s", a.Name, namePattern)
	}
	a.Description = strings.TrimSpace(scalar(meta["description"]))
	if a.Description == "" {
		return a, nil, errors.New("no description: the model chooses an agent by it; add `description:` to the front matter")
	}
	if a.Prompt == "" {
		return a, nil, errors.New("no system prompt: the body after the front matter is empty")
	}
	var warns []Warning
	warn := func(field, format string, args ...any) {
		warns = append(warns, Warning{File: file, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	for _, k := range order {
		v := meta[k]
		switch k {
		case "name", "description":
		case "tools":
			a.Tools = mapTools(list(v), func(n string) {
				warn("tools", "%s is not a tool ollm has; left out", n)
			})
			if len(a.Tools) == 0 && len(list(v)) > 0 && !all(list(v)) {
				a.Tools = []string{"-"} // every name unknown: no tools rather than all of them
			}
		case "disallowedTools":
			deny := map[string]bool{}
			for _, n := range mapTools(list(v), func(n string) { warn("disallowedTools", "%s is not a tool ollm has", n) }) {
				deny[n] = true
			}
			base := a.Tools
			if len(base) == 0 {
				base = builtins // every built-in; MCP tools are then left out
				warn("disallowedTools", "the agent gets ollm's built-in tools less these; MCP tools only when its tools field names them")
			}
			var keep []string
			for _, n := range base {
				if !deny[n] {
					keep = append(keep, n)
				}
			}
			a.Tools = keep
		case "model":
			a.Model = scalar(v)
			if a.Model == "inherit" {
				a.Model = ""
			}
		case "color":
			warn(k, "ollm shows no agent colours; ignored")
		case "permissionMode":
			warn(k, "not applied: the session's policy and approval mode decide")
		default:
			warn(k, "not a field ollm reads; ignored")
		}
	}
	return a, warns, nil
}

func all(names []string) bool {
	return len(names) == 1 && (names[0] == "*" || names[0] == "All")
}

// mapTools turns Claude's tool names (and ollm's own, and MCP tools as
// mcp__server__tool) into ollm's; unknown calls back with the others.
func mapTools(names []string, unknown func(string)) []string {
	if all(names) {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if i := strings.IndexByte(n, '('); i > 0 && strings.HasSuffix(n, ")") {
			n = n[:i] // Bash(git:*): the rule part is policy, the tool is offered
		}
		switch {
		case n == "":
		case tools[n] != nil:
			for _, m := range tools[n] {
				add(m)
			}
		case contains(builtins, n):
			add(n)
		case strings.HasPrefix(n, "mcp__"):
			server, tool, ok := strings.Cut(strings.TrimPrefix(n, "mcp__"), "__")
			if !ok || tool == "" {
				add(server + ":*")
			} else {
				add(server + ":" + tool)
			}
		default:
			unknown(n)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ReadDir reads dir's *.md agent files (sorted by name; none when dir does
// not exist). A file that is no usable agent is a warning too. When
// within is set, a file that resolves outside it (a symbolic link out of
// the project) is refused: its text would go to the model as a prompt.
func ReadDir(dir, within string) ([]schema.Subagent, []Warning) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, []Warning{{File: dir, Message: "cannot read it: " + err.Error()}}
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out []schema.Subagent
	var warns []Warning
	seen := map[string]string{}
	for _, n := range names {
		f := filepath.Join(dir, n)
		if why := outside(f, within); why != "" {
			warns = append(warns, Warning{File: f, Message: "skipped: " + why})
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			warns = append(warns, Warning{File: f, Message: "cannot read it: " + err.Error()})
			continue
		}
		a, w, err := Parse(f, data)
		warns = append(warns, w...)
		if err != nil {
			warns = append(warns, Warning{File: f, Message: "skipped: " + err.Error()})
			continue
		}
		if prev, dup := seen[a.Name]; dup {
			warns = append(warns, Warning{File: f, Field: "name", Message: fmt.Sprintf("%s is already defined by %s; skipped", a.Name, prev)})
			continue
		}
		seen[a.Name] = f
		out = append(out, a)
	}
	return out, warns
}

// outside says why f is not read: it resolves outside within.
func outside(f, within string) string {
	if within == "" {
		return ""
	}
	root, err := filepath.EvalSymlinks(within)
	if err != nil {
		return "cannot resolve " + within + ": " + err.Error()
	}
	real, err := filepath.EvalSymlinks(f)
	if err != nil {
		return "cannot resolve it: " + err.Error()
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "it links out of " + within + " (to " + real + "); an agent file is read only inside it"
	}
	return ""
}
