package claudeperm

import (
	"fmt"
	"github.com/ollm/ollm/internal/lazyre"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ollm/ollm/schema"
)

// Base is what relative paths of a rule resolve against.
type Base struct {
	Root string // the project: "./x", "x" and "/x" are under it
	Home string // "~/x"
}

// Rule is one converted Claude Code permission rule.
type Rule struct {
	Spec   string            // as written
	Policy schema.PolicyRule // on ollm's tools
	Tools  []string          // the ollm tools (or MCP tool pattern) it is about
}

// toolNames maps Claude Code's built-in tools to ollm's. A Read rule with
// a path also covers the tools that read files by path, as Claude Code
// applies Read rules to Grep, Glob and LS.
var toolNames = map[string][]string{
	"Bash":      {"shell"},
	"Read":      {"read_file", "read_many_files"},
	"Edit":      {"edit_file", "write_file"},
	"Write":     {"write_file"},
	"MultiEdit": {"edit_file"},
	"Glob":      {"glob"},
	"Grep":      {"grep"},
	"LS":        {"ls"},
	"WebFetch":  {"web_fetch"},
	"WebSearch": {"web_search"},
	"TodoWrite": {"write_todos"},
}

var readByPath = []string{"read_file", "read_many_files", "grep", "glob", "ls"}

var specRe = lazyre.New(`^([A-Za-z][A-Za-z0-9_]*)(?:\((.*)\))?$`)

// Convert turns spec into a policy rule with action (allow, deny, ask),
// named name (where it came from, shown by `ollm policy check`). An error
// says why the rule cannot be honoured.
func Convert(spec, action, name string, b Base) (Rule, error) {
	spec = strings.TrimSpace(spec)
	out := Rule{Spec: spec, Policy: schema.PolicyRule{Name: name, Action: action}}
	if strings.HasPrefix(spec, "mcp__") {
		pat, err := mcpPattern(spec)
		if err != nil {
			return out, err
		}
		out.Policy.Tool, out.Tools = pat, []string{pat}
		return out, nil
	}
	m := specRe.FindStringSubmatch(spec)
	if m == nil {
		return out, fmt.Errorf("%q is not a permission rule (Tool or Tool(specifier))", spec)
	}
	tool, arg := m[1], strings.TrimSpace(m[2])
	tools, ok := toolNames[tool]
	if !ok {
		return out, fmt.Errorf("%s has no counterpart among ollm's tools", tool)
	}
	var cond *schema.Condition
	var err error
	if arg != "" && arg != "*" {
		switch tool {
		case "Bash":
			cond, err = bashCond(arg)
		case "Read", "Edit", "Write", "MultiEdit":
			if tool == "Read" {
				tools = readByPath
			}
			cond, err = pathCond(arg, b)
		case "WebFetch":
			cond, err = domainCond(arg)
		default:
			err = fmt.Errorf("ollm cannot apply the specifier (%s) of %s; use %s alone", arg, tool, tool)
		}
		if err != nil {
			return out, err
		}
	}
	out.Tools = tools
	out.Policy.Tool = tools[0]
	if len(tools) > 1 {
		out.Policy.Tool = "{" + strings.Join(tools, ",") + "}"
	}
	out.Policy.When = cond
	return out, nil
}

// mcpPattern: mcp__server__tool is server:tool; mcp__server and
// mcp__server__* are every tool of the server.
func mcpPattern(spec string) (string, error) {
	rest := strings.TrimPrefix(spec, "mcp__")
	server, tool, _ := strings.Cut(rest, "__")
	if server == "" || strings.ContainsAny(server, "*?[{") {
		return "", fmt.Errorf("%q names no MCP server (write mcp__server or mcp__server__tool)", spec)
	}
	// A plugin's server is mcp__plugin_<plugin>_<server>__tool in Claude
	// Code; ollm names it <plugin>:<server>.
	if rest, ok := strings.CutPrefix(server, "plugin_"); ok {
		if p, srv, ok := strings.Cut(rest, "_"); ok && p != "" && srv != "" {
			server = p + ":" + srv
		}
	}
	if tool == "" || tool == "*" {
		return "mcp:" + server + ":*", nil
	}
	return "mcp:" + server + ":" + tool, nil
}

// bashCond matches every sub-command of a shell call: "prefix:*" is the
// prefix as whole words, "*" elsewhere any text, else the command exactly.
func bashCond(arg string) (*schema.Condition, error) {
	var re string
	if p, ok := strings.CutSuffix(arg, ":*"); ok {
		re = "^" + regexp.QuoteMeta(strings.TrimSpace(p)) + "( .*)?$"
	} else {
		parts := strings.Split(arg, "*")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		re = "^" + strings.Join(parts, ".*") + "$"
	}
	if _, err := regexp.Compile(re); err != nil {
		return nil, err
	}
	return &schema.Condition{Arg: "$command", Matches: re}, nil
}

// pathCond matches a file tool's path (path, or any of paths) against
// the rule's gitignore-style pattern, as the model may write the path:
// relative to the project, with ./, or absolute.
func pathCond(arg string, b Base) (*schema.Condition, error) {
	var globs []string
	switch {
	case strings.HasPrefix(arg, "//"):
		globs = []string{arg[1:]}
	case strings.HasPrefix(arg, "~/"):
		if b.Home == "" {
			return nil, fmt.Errorf("%s: no home directory to resolve ~ against", arg)
		}
		globs = []string{filepath.ToSlash(filepath.Join(b.Home, arg[2:]))}
	default:
		rel := strings.TrimPrefix(strings.TrimPrefix(arg, "./"), "/")
		if !strings.Contains(strings.TrimSuffix(rel, "/"), "/") && !strings.HasPrefix(rel, "**") {
			rel = "**/" + rel // gitignore: a name without a slash matches at any depth
		}
		globs = []string{rel, "./" + rel}
		if b.Root != "" {
			globs = append(globs, filepath.ToSlash(b.Root)+"/"+rel)
		}
	}
	var anyOf []schema.Condition
	for _, g := range globs {
		if strings.HasSuffix(g, "/") {
			g += "**"
		}
		g = strings.ReplaceAll(g, "/**/**/", "/**/")
		for _, a := range []string{"path", "paths"} {
			anyOf = append(anyOf, schema.Condition{Arg: a, Glob: g})
		}
		if after, ok := strings.CutPrefix(g, "**/"); ok { // also at the top
			for _, a := range []string{"path", "paths"} {
				anyOf = append(anyOf, schema.Condition{Arg: a, Glob: after})
			}
		}
	}
	return &schema.Condition{Any: anyOf}, nil
}

// domainCond matches a web_fetch URL's host: domain:example.com is that
// host; domain:*.example.com its subdomains.
func domainCond(arg string) (*schema.Condition, error) {
	d, ok := strings.CutPrefix(arg, "domain:")
	if !ok || d == "" {
		return nil, fmt.Errorf("WebFetch(%s): ollm applies WebFetch(domain:HOST) only", arg)
	}
	host := regexp.QuoteMeta(strings.ToLower(d))
	if sub, ok := strings.CutPrefix(d, "*."); ok {
		host = `([a-z0-9-]+\.)+` + regexp.QuoteMeta(strings.ToLower(sub))
	}
	return &schema.Condition{Arg: "url", Matches: `(?i)^https?://([^/?#@]*@)?` + host + `\.?(:[0-9]+)?([/?#]|$)`}, nil
}

// Split reads an allowed-tools value: a YAML list joined with commas, or
// one string of rules separated by commas or spaces, parentheses kept
// whole ("Bash(git add:*), Read").
func Split(v string) []string {
	v = strings.Trim(strings.TrimSpace(v), "[]")
	var out []string
	var cur strings.Builder
	depth := 0
	flush := func() {
		s := strings.Trim(strings.TrimSpace(cur.String()), `"'`)
		if s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for _, r := range v {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case (r == ',' || r == ' ') && depth == 0:
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}
