package ext

import (
	"sort"
	"strings"

	"github.com/ollm/ollm/core/hooks"

	"github.com/ollm/ollm/schema"
)

// Exclusions are what the active extensions take away from the model
// through their manifest's excludeTools.
type Exclusions struct {
	// Tools maps a tool name to the extensions that exclude it; such a
	// tool is not offered while one of them is active.
	Tools map[string][]string
	// Commands are entries with arguments ("run_shell_command(rm -rf)"):
	// they exclude the commands that start with Prefix, not the tool.
	Commands []ExcludedCommand
}

// ExcludedCommand is a command prefix an extension excludes.
type ExcludedCommand struct {
	Extension string
	Tool      string // ollm's name: "shell"
	Prefix    string
}

// Excluded reports whether name is excluded and by which extensions.
func (x Exclusions) Excluded(name string) ([]string, bool) {
	by, ok := x.Tools[name]
	return by, ok
}

// ParseExclusion splits an excludeTools entry into the tool and, for the
// "tool(command prefix)" form, the prefix. Gemini CLI names are mapped
// onto ollm's when gemini is set.
func ParseExclusion(entry string, gemini bool) (tool, prefix string) {
	tool = strings.TrimSpace(entry)
	if i := strings.IndexByte(tool, '('); i > 0 && strings.HasSuffix(tool, ")") {
		tool, prefix = strings.TrimSpace(tool[:i]), strings.TrimSpace(tool[i+1:len(tool)-1])
	}
	if n, ok := hooks.FromGeminiToolName(tool); ok && gemini { // Gemini CLI's names (run_shell_command, replace, ...)
		tool = n
	}
	return tool, prefix
}

// Exclusions collects the excludeTools entries of every active extension.
func (m *Manager) Exclusions() Exclusions {
	m.mu.Lock()
	defer m.mu.Unlock()
	x := Exclusions{Tools: map[string][]string{}}
	for _, name := range m.order {
		e := m.exts[name]
		if !e.active {
			continue
		}
		for _, entry := range e.ext.Manifest.ExcludeTools {
			tool, prefix := ParseExclusion(entry, e.ext.Format == "gemini")
			switch {
			case tool == "":
			case prefix != "":
				x.Commands = append(x.Commands, ExcludedCommand{Extension: name, Tool: tool, Prefix: prefix})
			default:
				x.Tools[tool] = append(x.Tools[tool], name)
			}
		}
	}
	for _, by := range x.Tools {
		sort.Strings(by)
	}
	return x
}

// DenyRules turns the command exclusions into policy deny rules (they
// only tighten), each naming the extension, with the scope of the
// extension that declared it for the rule's layer.
func (m *Manager) DenyRules() ([]schema.PolicyRule, []schema.Scope) {
	cmds := m.Exclusions().Commands
	m.mu.Lock()
	defer m.mu.Unlock()
	var rules []schema.PolicyRule
	var scopes []schema.Scope
	for _, c := range cmds {
		rules = append(rules, schema.PolicyRule{
			Name: c.Extension + ":excludeTools", Tool: c.Tool, Action: "deny",
			When:    &schema.Condition{Arg: "$command", StartsWith: c.Prefix},
			Message: "extension " + c.Extension + " excludes `" + c.Prefix + "` commands (excludeTools)",
		})
		scopes = append(scopes, m.exts[c.Extension].ext.Scope)
	}
	return rules, scopes
}
