package policy

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// mcpPrefix in a rule's tool pattern restricts it to MCP tools: MCP tools
// are named "server:tool", so "mcp:github:*" matches github:create_issue
// only when it came from an MCP server, and "mcp:*" matches every MCP tool.
const mcpPrefix = "mcp:"

// rule is a compiled PolicyRule.
type rule struct {
	ref     RuleRef
	action  Action
	risk    tool.Risk
	message string
	pat     toolPattern
	cond    *cond  // nil: always true
	matched string // the reason when it decides: `rule rules[2] "x" matches: deny`
}

// toolPattern matches tool names.
type toolPattern struct {
	mcpOnly bool
	glob    string // the pattern without the mcp: prefix
	exact   bool   // no glob metacharacters: compare as a string
	literal int    // literal characters: more is more specific
}

func compileRule(i int, r schema.PolicyRule, layer string) (*rule, error) {
	ref := RuleRef{Index: i, Name: r.Name, Layer: layer, Tool: r.Tool}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("policy %s: %s", ref.Label(), fmt.Sprintf(format, a...))
	}
	a, ok := parseAction(r.Action)
	if !ok {
		return nil, fail("action %q: use allow, deny or ask", r.Action)
	}
	pat, err := compilePattern(r.Tool)
	if err != nil {
		return nil, fail("%v", err)
	}
	risk := tool.Risk(r.Risk)
	switch risk {
	case "", tool.RiskLow, tool.RiskMedium, tool.RiskHigh:
	default:
		return nil, fail("risk %q: use low, medium or high", r.Risk)
	}
	out := &rule{ref: ref, action: a, risk: risk, message: r.Message, pat: pat,
		matched: "rule " + ref.Label() + " matches: " + string(a)}
	if r.When != nil {
		if out.cond, err = compileCond(*r.When, "when"); err != nil {
			return nil, fail("%v", err)
		}
	}
	return out, nil
}

func compilePattern(p string) (toolPattern, error) {
	if p == "" {
		return toolPattern{}, fmt.Errorf("tool is empty: give a tool name or a glob such as \"*\" or \"mcp:github:*\"")
	}
	tp := toolPattern{glob: p}
	if strings.HasPrefix(p, mcpPrefix) {
		tp.mcpOnly, tp.glob = true, p[len(mcpPrefix):]
	}
	if !doublestar.ValidatePattern(tp.glob) {
		return tp, fmt.Errorf("tool pattern %q is not a valid glob", p)
	}
	tp.exact = !strings.ContainsAny(tp.glob, `*?[{\`)
	tp.literal = len(p) - strings.Count(tp.glob, "*") - strings.Count(tp.glob, "?")
	return tp, nil
}

// match reports whether the pattern matches the tool.
func (tp toolPattern) match(name string, isMCP bool) bool {
	if tp.mcpOnly && !isMCP {
		return false
	}
	if tp.exact {
		return tp.glob == name
	}
	ok, _ := doublestar.Match(tp.glob, name)
	return ok
}

// beats reports whether rule a wins over rule b when both match: the more
// specific pattern first (an exact name over any glob, then more literal
// characters), then deny over ask over allow, then the earlier rule. A nil
// b is the default action, which every rule beats.
func beats(a, b *rule) bool {
	if b == nil {
		return true
	}
	if a.pat.exact != b.pat.exact {
		return a.pat.exact
	}
	if a.pat.literal != b.pat.literal {
		return a.pat.literal > b.pat.literal
	}
	if sa, sb := a.action.severity(), b.action.severity(); sa != sb {
		return sa > sb
	}
	return a.ref.Index < b.ref.Index
}

// RuleRef names the rule that made a decision.
type RuleRef struct {
	Index int    `json:"index"` // position in the resolved policy.rules
	Name  string `json:"name,omitempty"`
	Layer string `json:"layer,omitempty"` // builtin, user, workspace, ...
	Tool  string `json:"tool"`            // the rule's tool pattern
}

// Label is how messages name the rule: rules[3] "no-rm" (workspace).
func (r RuleRef) Label() string {
	s := fmt.Sprintf("rules[%d]", r.Index)
	if r.Name != "" {
		s += fmt.Sprintf(" %q", r.Name)
	}
	if r.Layer != "" {
		s += " (" + r.Layer + ")"
	}
	return s
}
