package policy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// Details are what the user sees when a call is asked about: the tool,
// what the call does, its risk, the places it touches, the final
// arguments, a diff for edits, and the rule that asked.
type Details struct {
	Tool        string          `json:"tool"`
	Description string          `json:"description"`
	Kind        tool.Kind       `json:"kind"`
	Risk        tool.Risk       `json:"risk"`
	Locations   []string        `json:"locations,omitempty"`
	Params      json.RawMessage `json:"params"`
	Diff        string          `json:"diff,omitempty"`
	Command     string          `json:"command,omitempty"`
	Rule        *RuleRef        `json:"rule,omitempty"`
	Reason      string          `json:"reason"`
	Message     string          `json:"message,omitempty"`
	Parts       []Part          `json:"parts,omitempty"`
	// Always is the rule an "always" answer saves, as text (RulesText);
	// AlwaysNarrow the narrower one offered beside it ("" when there is
	// none). The agent fills both.
	Always       string `json:"always,omitempty"`
	AlwaysNarrow string `json:"alwaysNarrow,omitempty"`
	// Trust says what the file the call writes decides (a trust file,
	// tool.Confirmation.Trust); every dialog shows it, none offers
	// "always".
	Trust string `json:"trust,omitempty"`
}

// Confirm builds the details of an ask from the invocation (its own
// Confirmation when it has one) and the decision. The risk is the higher
// of the two unless the deciding rule set one.
func Confirm(f Facts, inv tool.Invocation, d Decision) Details {
	out := Details{Tool: f.Name, Description: inv.Description(), Kind: f.Kind, Risk: d.Risk,
		Locations: inv.Locations(), Params: inv.Params(),
		Rule: d.Rule, Reason: d.Reason, Message: d.Message, Parts: d.Parts}
	c := inv.Confirmation()
	if c == nil {
		return out
	}
	if c.Title != "" {
		out.Description = c.Title
	}
	if c.Kind != "" {
		out.Kind = c.Kind
	}
	if !d.riskFromRule {
		out.Risk = maxRisk(d.Risk, c.Risk)
	}
	if len(c.Locations) > 0 {
		out.Locations = c.Locations
	}
	if len(c.Params) > 0 {
		out.Params = c.Params
	}
	out.Diff, out.Command, out.Trust = c.Diff, c.Command, c.Trust
	return out
}

// AlwaysAllow returns the rules that make an "always allow" answer stick:
// an allow rule for the exact tool, or for a shell-like tool one per
// program that was asked about ({arg: "$program", equals: "git"}). complete
// is false when some asked part has no literal program, so no rule can
// cover it.
func (p *Policy) AlwaysAllow(d Decision) (rules []schema.PolicyRule, complete bool) {
	if _, isShell := p.shellArg(d.Tool); !isShell || len(d.Parts) == 0 {
		return []schema.PolicyRule{{Name: "always allow " + d.Tool, Tool: escapeGlob(d.Tool), Action: string(Allow)}}, true
	}
	complete = true
	seen := map[string]bool{}
	for _, pt := range d.Parts {
		if pt.Action != Ask {
			continue
		}
		if pt.Program == "" {
			complete = false
			continue
		}
		if seen[pt.Program] {
			continue
		}
		seen[pt.Program] = true
		rules = append(rules, schema.PolicyRule{
			Name: fmt.Sprintf("always allow %s: %s", d.Tool, pt.Program), Tool: escapeGlob(d.Tool),
			Action: string(Allow), When: &schema.Condition{Arg: "$program", Equals: pt.Program}})
	}
	return rules, complete
}

// escapeGlob quotes glob metacharacters so a name matches only itself.
func escapeGlob(s string) string {
	if !strings.ContainsAny(s, `*?[]{}\`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
