package policy

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/schema"
)

// AlwaysAllowNarrow returns the rules for the narrower "always" answer:
// for each asked part of a shell call, its program and sub-command
// (`git status`, any further arguments) instead of every use of the
// program. ok is false when there is nothing narrower than AlwaysAllow
// (not a shell call, or a part without a literal sub-command word), and
// the narrow answer is not offered.
func (p *Policy) AlwaysAllowNarrow(d Decision) (rules []schema.PolicyRule, ok bool) {
	if _, isShell := p.shellArg(d.Tool); !isShell || len(d.Parts) == 0 {
		return nil, false
	}
	seen := map[string]bool{}
	for _, pt := range d.Parts {
		if pt.Action != Ask {
			continue
		}
		sub := subcommand(pt)
		if pt.Program == "" || sub == "" {
			return nil, false
		}
		key := pt.Program + " " + sub
		if seen[key] {
			continue
		}
		seen[key] = true
		rules = append(rules, schema.PolicyRule{
			Name: fmt.Sprintf("always allow %s: %s", d.Tool, key), Tool: escapeGlob(d.Tool), Action: string(Allow),
			When: &schema.Condition{All: []schema.Condition{
				{Arg: "$program", Equals: pt.Program},
				{Arg: "$command", Matches: `^(\S*/)?` + regexp.QuoteMeta(key) + `( |$)`},
			}}})
	}
	return rules, len(rules) > 0
}

var subcommandRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`)

// subcommand is the word after the program in a part as written, when it
// is a plain word (not a flag, not quoted): "status" in "git status -s".
func subcommand(pt Part) string {
	f := strings.Fields(pt.Command)
	for i, w := range f {
		if path.Base(w) == pt.Program && i+1 < len(f) {
			if subcommandRE.MatchString(f[i+1]) {
				return f[i+1]
			}
			return ""
		}
	}
	return ""
}

// RulesText shows rules as the user reads them in a confirmation:
// `shell where $program equals "git"`, one rule per "; ".
func RulesText(rules []schema.PolicyRule) string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.Tool
		if r.When != nil {
			out[i] += " where " + condText(*r.When)
		}
	}
	return strings.Join(out, "; ")
}

func condText(c schema.Condition) string {
	switch {
	case len(c.All) > 0:
		parts := make([]string, len(c.All))
		for i, x := range c.All {
			parts[i] = condText(x)
		}
		return strings.Join(parts, " and ")
	case c.Equals != nil:
		return fmt.Sprintf("%s equals %q", c.Arg, fmt.Sprint(c.Equals))
	case c.Matches != "":
		return fmt.Sprintf("%s matches %q", c.Arg, c.Matches)
	}
	return c.Arg
}
