package profiles

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/ollm/ollm/schema"
)

// A Gemini CLI extension's policies/*.toml hold rules for Gemini CLI's
// policy engine:
//
//	[[rule]]
//	toolName = "run_shell_command"   # or a list; "*", "mcp_server_*", ...
//	commandPrefix = "rm -rf"         # or commandRegex, argsPattern
//	mcpName = "server"               # with toolName: one tool of it
//	decision = "deny"                # allow | deny | ask_user
//	priority = 100
//	denyMessage = "..."
//
// Each deny and ask_user rule becomes an ollm policy rule of the
// extension's scope, named "<extension> policies/<file>:<line> rule[<i>]"
// so `ollm policy check` and a refusal name where it came from. Gemini
// CLI ignores allow decisions (and yolo-mode rules) of extensions, so an
// extension can only tighten what runs; ollm does the same, with one
// warning for each allow rule. What cannot be mapped (argsPattern over
// the JSON arguments, subagent, toolAnnotations, interactive, modes that
// leave out the default mode, safety checkers) is skipped with one
// warning naming file:line and why. priority has no counterpart: ollm's
// deny wins over ask wherever both match.

// geminiPolicyTools maps Gemini CLI's built-in tool names to ollm's.
var geminiPolicyTools = map[string]string{
	"run_shell_command": "shell", "read_file": "read_file", "write_file": "write_file",
	"replace": "edit_file", "read_many_files": "read_many_files", "glob": "glob",
	"grep_search": "grep", "search_file_content": "grep", "list_directory": "ls",
	"web_fetch": "web_fetch", "google_web_search": "web_search", "save_memory": "memory",
	"write_todos": "write_todos", "activate_skill": "activate_skill",
}

// geminiPolicy is one converted rule, or why it was skipped.
type geminiPolicy struct {
	rule schema.PolicyRule
	pos  string // file:line
	skip string // why it was not loaded
}

// mergeGeminiPolicies adds the policy rules of the loaded Gemini CLI
// extensions (those the profile does not switch off) to the resolved
// profile.
func mergeGeminiPolicies(r *schema.Resolved) []schema.Problem {
	var probs []schema.Problem
	for _, x := range r.Extensions {
		if x.Format != "gemini" {
			continue
		}
		if on, set := r.Profile.Extensions.Enable[x.Name]; set && !on {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(x.Dir, "policies", "*.toml"))
		sort.Strings(files)
		for _, f := range files {
			rules, err := geminiPolicyFile(x.Name, x.Dir, f)
			if err != nil {
				probs = append(probs, schema.Problem{Severity: "warning", Extension: x.Name, File: f, Pos: err.pos,
					Message: "Gemini CLI policy file skipped: " + err.msg, Fix: "fix the TOML, as Gemini CLI's policy engine documents it"})
				continue
			}
			for _, p := range rules {
				if p.skip != "" {
					probs = append(probs, schema.Problem{Severity: "warning", Extension: x.Name, File: f, Pos: p.pos,
						Message: "Gemini CLI policy rule skipped: " + p.skip,
						Fix:     "write an ollm policy rule for it in ollm.cue (docs/policy.md), or remove it to silence this"})
					continue
				}
				r.Profile.Policy.Rules = append(r.Profile.Policy.Rules, p.rule)
				r.RuleScopes = append(r.RuleScopes, x.Scope)
			}
		}
	}
	return probs
}

type policyFileError struct{ pos, msg string }

// geminiPolicyFile reads one policy file of extension ext (in dir).
func geminiPolicyFile(ext, dir, file string) ([]geminiPolicy, *policyFileError) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, &policyFileError{file, err.Error()}
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		pos := file
		if de, ok := err.(*toml.DecodeError); ok {
			row, col := de.Position()
			pos = fmt.Sprintf("%s:%d:%d", file, row, col)
		}
		return nil, &policyFileError{pos, err.Error()}
	}
	rel, _ := filepath.Rel(dir, file)
	rel = filepath.ToSlash(rel)
	lines := tableLines(data, "rule")
	var out []geminiPolicy
	rules, _ := doc["rule"].([]any)
	for i, raw := range rules {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		pos := fmt.Sprintf("%s:%d", file, line)
		m, _ := raw.(map[string]any)
		p := convertGeminiRule(m)
		p.pos = pos
		p.rule.Name = fmt.Sprintf("%s %s:%d rule[%d]", ext, rel, line, i)
		out = append(out, p)
	}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "rule" {
			continue
		}
		why := "ollm does not read " + k + " of a policy file"
		if k == "safety_checker" {
			why = "Gemini CLI's safety checkers have no ollm counterpart; hooks (before_tool) can check calls instead"
		}
		line := 0
		if l := tableLines(data, k); len(l) > 0 {
			line = l[0]
		}
		out = append(out, geminiPolicy{pos: fmt.Sprintf("%s:%d", file, line), skip: fmt.Sprintf("[%s]: %s", k, why)})
	}
	return out, nil
}

// tableLines are the 1-based lines of the [[name]] (or [name]) headers.
func tableLines(data []byte, name string) []int {
	var out []int
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if h, _, _ := strings.Cut(l, "#"); strings.TrimSpace(h) == "[["+name+"]]" || strings.TrimSpace(h) == "["+name+"]" {
			out = append(out, i+1)
		}
	}
	return out
}

// convertGeminiRule maps one [[rule]] table.
func convertGeminiRule(m map[string]any) geminiPolicy {
	var p geminiPolicy
	str := func(k string) string { s, _ := m[k].(string); return s }
	list := func(k string) ([]string, bool) {
		switch v := m[k].(type) {
		case nil:
			return nil, true
		case string:
			return []string{v}, true
		case []any:
			var out []string
			for _, x := range v {
				s, ok := x.(string)
				if !ok {
					return nil, false
				}
				out = append(out, s)
			}
			return out, true
		}
		return nil, false
	}
	switch d := str("decision"); d {
	case "deny":
		p.rule.Action = "deny"
	case "ask_user":
		p.rule.Action = "ask"
	case "allow":
		p.skip = `decision "allow": Gemini CLI ignores allow rules of extensions (an extension may not approve calls), and so does ollm; allow the tool yourself in ollm.cue if you want it`
		return p
	default:
		p.skip = fmt.Sprintf("decision %q: want deny or ask_user", d)
		return p
	}
	for _, k := range []string{"argsPattern", "subagent", "toolAnnotations", "interactive"} {
		if _, set := m[k]; set {
			why := map[string]string{
				"argsPattern":     "argsPattern tests the JSON of the arguments, which ollm's rules do not see; use commandPrefix or commandRegex for shell commands",
				"subagent":        "subagent: ollm's rules apply to every agent alike",
				"toolAnnotations": "toolAnnotations: ollm's rules cannot select tools by their MCP hints",
				"interactive":     "interactive: ollm's rules apply with and without a terminal alike",
			}[k]
			p.skip = why
			return p
		}
	}
	if modes, ok := list("modes"); !ok || len(modes) > 0 && !slices.Contains(modes, "default") {
		p.skip = fmt.Sprintf("modes %v: ollm's rules apply in every mode, and this rule leaves out the default mode", m["modes"])
		return p
	}
	tools, ok := list("toolName")
	if !ok {
		p.skip = "toolName: want a tool name or a list of them"
		return p
	}
	prefixes, ok := list("commandPrefix")
	if !ok {
		p.skip = "commandPrefix: want a string or a list of them"
		return p
	}
	re := str("commandRegex")
	if len(prefixes) > 0 || re != "" {
		if len(prefixes) > 0 && re != "" {
			p.skip = "commandPrefix and commandRegex together: Gemini CLI refuses this rule too"
			return p
		}
		if len(tools) > 1 || len(tools) == 1 && tools[0] != "run_shell_command" {
			p.skip = fmt.Sprintf("commandPrefix/commandRegex with toolName %v: they apply to run_shell_command only", tools)
			return p
		}
		p.rule.Tool = "shell"
		if re != "" {
			pat := "(?s)^(?:" + re + ")"
			if _, err := regexp.Compile(pat); err != nil {
				p.skip = fmt.Sprintf("commandRegex %q is not a regular expression ollm (Go RE2) can run: %v", re, err)
				return p
			}
			p.rule.When = &schema.Condition{Arg: "$command", Matches: pat}
		} else {
			var any []schema.Condition
			for _, pre := range prefixes {
				any = append(any, schema.Condition{Arg: "$command", Matches: `(?s)^` + regexp.QuoteMeta(strings.TrimSpace(pre)) + `(\s.*)?$`})
			}
			p.rule.When = &schema.Condition{Any: any}
			if len(any) == 1 {
				p.rule.When = &any[0]
			}
		}
	} else {
		var pats []string
		server := str("mcpName")
		if len(tools) == 0 {
			if server == "" {
				p.skip = "no toolName, mcpName or commandPrefix: a rule for every tool is not taken from an extension"
				return p
			}
			tools = []string{"*"}
		}
		for _, t := range tools {
			pat, why := geminiToolPattern(t, server)
			if why != "" {
				p.skip = why
				return p
			}
			pats = append(pats, pat)
		}
		p.rule.Tool = pats[0]
		if len(pats) > 1 {
			p.rule.Tool = "{" + strings.Join(pats, ",") + "}"
		}
	}
	p.rule.Message = str("denyMessage")
	return p
}

// geminiToolPattern is the ollm tool pattern of a Gemini CLI toolName
// (with mcpName, the name of one of that server's tools).
func geminiToolPattern(t, server string) (string, string) {
	if server != "" {
		if strings.ContainsAny(server, "?[{") || t == "" {
			return "", fmt.Sprintf("mcpName %q: not a server name", server)
		}
		return "mcp:" + server + ":" + t, ""
	}
	if t == "*" {
		return "*", ""
	}
	if ours, ok := geminiPolicyTools[t]; ok {
		return ours, ""
	}
	if rest, ok := strings.CutPrefix(t, "mcp_"); ok {
		if rest == "*" {
			return "mcp:*", ""
		}
		srv, tool, ok := strings.Cut(rest, "_")
		if ok && srv != "" && tool != "" {
			return "mcp:" + srv + ":" + tool, ""
		}
	}
	if srv, tool, ok := strings.Cut(t, "__"); ok && srv != "" && tool != "" {
		return "mcp:" + srv + ":" + tool, ""
	}
	return "", fmt.Sprintf("toolName %q is not a Gemini CLI tool ollm has (nor mcp_<server>_<tool>)", t)
}
