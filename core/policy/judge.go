package policy

import (
	"fmt"
	"strings"

	"github.com/ollm/ollm/core/tool"
)

// judge decides one part: the mode's hard limits, then the rules.
func (p *Policy) judge(cands []*rule, ec *evalCtx) verdict {
	if p.mode == ModePlan && !ec.facts.readOnly() {
		return verdict{action: Deny, reason: fmt.Sprintf(
			"plan mode runs only read-only tools, and %s is %s tool; leave plan mode to run it", ec.facts.Name, withArticle(kindName(ec.facts.Kind)))}
	}
	best, maybes := match(cands, ec)
	if p.mode == ModeYolo {
		return p.yolo(best, maybes, ec.part)
	}
	v := p.certain(best)
	if len(maybes) > 0 {
		v = p.uncertain(v, best, maybes, ec.part)
	}
	if p.mode == ModeAutoEdit && ec.facts.Kind == tool.KindEdit && v.action == Ask {
		v.action = Allow
		v.reason += "; auto_edit mode runs edits without asking"
	}
	return v
}

// match evaluates every candidate rule. best is the winner among the rules
// that certainly match (nil: none does); maybes are the rules whose match
// depends on what is only known at run time and that would beat best.
func match(cands []*rule, ec *evalCtx) (best *rule, maybes []*rule) {
	var unsure []*rule
	for _, r := range cands {
		t := yes
		if r.cond != nil {
			t = r.cond.eval(ec, r.action == Allow)
		}
		switch {
		case t == yes && beats(r, best):
			best = r
		case t == maybe:
			unsure = append(unsure, r)
		}
	}
	for _, r := range unsure {
		if beats(r, best) {
			maybes = append(maybes, r)
		}
	}
	return best, maybes
}

// certain is the verdict of the winning rule, or the default action.
func (p *Policy) certain(best *rule) verdict {
	if best == nil {
		return verdict{action: p.defaultAction, reason: "no rule matches, so the default action applies: " + string(p.defaultAction)}
	}
	return verdict{action: best.action, rule: best, reason: best.matched}
}

// uncertain settles a part whose outcome depends on unknown values. If a
// deny could result, it is asked about (denied when the command does not
// even parse); if only ask or allow could, it is asked about.
func (p *Policy) uncertain(v verdict, best *rule, maybes []*rule, pt *part) verdict {
	why := "the command is not fully known"
	if pt != nil && pt.note != "" {
		why = pt.note
	}
	if d := firstWith(maybes, Deny); d != nil || v.action == Deny {
		if d == nil {
			d = best
		}
		if pt != nil && pt.broken {
			return verdict{action: Deny, rule: d, reason: fmt.Sprintf("%s, and %s could deny it", why, p.label(d))}
		}
		return verdict{action: Ask, rule: d, reason: fmt.Sprintf("%s, and %s might deny it, so ask", why, p.label(d))}
	}
	for _, m := range maybes {
		if m.action != v.action {
			return verdict{action: Ask, rule: m, reason: fmt.Sprintf("%s, so whether %s (%s) applies cannot be known; ask", why, p.label(m), m.action)}
		}
	}
	return v
}

// yolo allows everything except what a deny rule refuses, and refuses what
// a deny rule might refuse, as it cannot ask.
func (p *Policy) yolo(best *rule, maybes []*rule, pt *part) verdict {
	if best != nil && best.action == Deny {
		return verdict{action: Deny, rule: best, reason: best.matched + " (yolo mode keeps deny rules)"}
	}
	if d := firstWith(maybes, Deny); d != nil {
		why := "the command is not fully known"
		if pt != nil && pt.note != "" {
			why = pt.note
		}
		return verdict{action: Deny, rule: d, reason: fmt.Sprintf("%s, and %s might deny it (yolo mode cannot ask)", why, p.label(d))}
	}
	v := verdict{action: Allow, reason: "yolo mode allows everything no deny rule refuses"}
	if best != nil && best.action == Allow {
		v.rule, v.reason = best, best.matched
	}
	return v
}

func firstWith(rs []*rule, a Action) *rule {
	for _, r := range rs {
		if r.action == a {
			return r
		}
	}
	return nil
}

// withArticle puts "a" or "an" before a kind: "an execute", "a read".
func withArticle(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

func kindName(k tool.Kind) string {
	if k == "" {
		return string(tool.KindOther)
	}
	return string(k)
}
