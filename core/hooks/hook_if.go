package hooks

import (
	"sync"

	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/internal/claudeperm"
	"github.com/ollm/ollm/schema"
)

// A hook's `if` (Claude Code's hook field) is a permission rule in
// Claude's syntax, Bash(rm *), Edit(src/**), mcp__server__tool: the hook
// runs only for the tool calls the rule matches, and no process starts
// for the others. The rule is judged by the policy engine, as a
// settings.json permission rule is, so a shell command matches when any of
// its sub-commands does ("ls && rm -rf x" matches Bash(rm *)). On events
// without a tool call the hook does not run, as in Claude Code. A rule
// that cannot be read errs towards running the hook (the matcher alone
// decides), the safe side for a guard; the profile loader has warned.

// ifRule is a compiled `if`: pol allows exactly the calls it matches; nil
// when the rule cannot be read.
type ifRule struct{ pol *policy.Policy }

var ifRules sync.Map // root + "\x00" + spec -> *ifRule

func compileIf(spec, root string) *ifRule {
	key := root + "\x00" + spec
	if v, ok := ifRules.Load(key); ok {
		return v.(*ifRule)
	}
	r := &ifRule{}
	if rule, err := claudeperm.Convert(spec, "allow", "if", claudeperm.Base{Root: root}); err == nil {
		if pol, err := policy.Compile(schema.Policy{DefaultAction: "deny", Rules: []schema.PolicyRule{rule.Policy}}, policy.Options{}); err == nil {
			r.pol = pol
		}
	}
	ifRules.Store(key, r)
	return r
}

// IfError says why a hook's `if` cannot be applied, or nil.
func IfError(spec string) error {
	_, err := claudeperm.Convert(spec, "allow", "if", claudeperm.Base{Root: "/"})
	return err
}

// ifMatches reports whether h's `if` lets it run for the call of data.
// Relative paths of the rule are the session's (root).
func ifMatches(h *Hook, e Event, data map[string]any, root string) bool {
	if h.Def.If == "" {
		return true
	}
	tool, ok := data["tool_name"].(string)
	if !ok || e == SessionStart || e == OnContextOverflow {
		return false // no tool call: an `if` hook does not run
	}
	r := compileIf(h.Def.If, root)
	if r.pol == nil {
		return true
	}
	name := tool
	if k, ok := data[MCPToolKey].(string); ok && k != "" {
		name = k // server:tool, as the policy knows it
	}
	args, _ := data["args"].(map[string]any)
	d := r.pol.Decide(policy.Facts{Name: name}, args)
	if d.Action == policy.Allow {
		return true
	}
	for _, pt := range d.Parts { // the most severe part decided: any match will do
		if pt.Action == policy.Allow {
			return true
		}
	}
	return false
}
