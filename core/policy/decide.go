package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/ollm/ollm/core/tool"
)

// Decision is the policy's answer for one call and why.
type Decision struct {
	Tool    string    `json:"tool"`
	Action  Action    `json:"action"`
	Mode    Mode      `json:"mode"`
	Rule    *RuleRef  `json:"rule,omitempty"` // nil: the default action or the mode decided
	Risk    tool.Risk `json:"risk"`
	Message string    `json:"message,omitempty"` // the deciding rule's message
	Reason  string    `json:"reason"`
	Parts   []Part    `json:"parts,omitempty"` // shell tools: every sub-command

	riskFromRule bool // every deciding rule set the risk
}

// Part is the decision for one sub-command of a shell command line.
type Part struct {
	Command string   `json:"command"`           // as written
	Program string   `json:"program,omitempty"` // empty when not literal
	Via     string   `json:"via,omitempty"`     // wrappers it was found in
	Action  Action   `json:"action"`
	Rule    *RuleRef `json:"rule,omitempty"`
	Reason  string   `json:"reason"`
}

// verdict is one part's outcome before it becomes a Decision.
type verdict struct {
	action Action
	rule   *rule // nil: the default action or the mode
	reason string
}

// DecideJSON decodes the call's final arguments (a JSON object) and
// decides.
func (p *Policy) DecideJSON(f Facts, raw json.RawMessage) (Decision, error) {
	var args map[string]any
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return Decision{}, fmt.Errorf("arguments of %s are not a JSON object (%v); pass one such as {\"path\": \"README.md\"}", f.Name, err)
		}
	}
	return p.Decide(f, args), nil
}

// Decide judges one call of the tool described by f with its final
// arguments. For a shell-like tool every sub-command of the command line
// is judged and the most severe verdict wins (deny over ask over allow).
func (p *Policy) Decide(f Facts, args map[string]any) Decision {
	cands := p.candidates(&f)
	ec := evalCtx{facts: &f, args: args}
	arg, isShell := p.shellArg(f.Name)
	cmd, hasCmd := args[arg].(string)
	if !isShell || !hasCmd {
		return p.decision(&f, p.judge(cands, &ec), nil)
	}
	ec.shellArg = arg
	pts := splitCommand(cmd)
	if len(pts) == 0 { // empty or only comments: nothing runs
		return p.decision(&f, p.judge(cands, &ec), nil)
	}
	vs := make([]verdict, len(pts))
	for i := range pts {
		ec.part = &pts[i]
		vs[i] = p.judge(cands, &ec)
	}
	return p.combine(&f, pts, vs)
}

// candidates are the rules whose tool pattern matches the tool, computed
// once per tool name.
func (p *Policy) candidates(f *Facts) []*rule {
	mcp := f.isMCP()
	key := f.Name
	if mcp {
		key += "\x00mcp"
	}
	if c, ok := p.byTool.Load(key); ok {
		return c.([]*rule)
	}
	var out []*rule
	for _, r := range p.rules {
		if r.pat.match(f.Name, mcp) {
			out = append(out, r)
		}
	}
	if p.cached.Add(1) <= maxCached {
		p.byTool.Store(key, out)
	}
	return out
}

// combine picks the most severe part verdict (the first of equals) as the
// decision and lists every part.
func (p *Policy) combine(f *Facts, pts []part, vs []verdict) Decision {
	worst := 0
	for i, v := range vs {
		if v.action.severity() > vs[worst].action.severity() {
			worst = i
		}
	}
	d := p.decision(f, vs[worst], &pts[worst])
	d.Parts = make([]Part, len(pts))
	base := RiskOf(*f)
	d.riskFromRule = true
	for i, pt := range pts {
		prog, _ := pt.program.(string)
		d.Parts[i] = Part{Command: pt.text, Program: prog, Via: pt.via,
			Action: vs[i].action, Rule: vs[i].rule.refOrNil(), Reason: vs[i].reason}
		d.Risk = maxRisk(d.Risk, ruleRisk(vs[i].rule, base))
		d.riskFromRule = d.riskFromRule && vs[i].rule != nil && vs[i].rule.risk != ""
	}
	return d
}

func (p *Policy) decision(f *Facts, v verdict, pt *part) Decision {
	d := Decision{Tool: f.Name, Action: v.action, Mode: p.mode, Rule: v.rule.refOrNil(),
		Risk: ruleRisk(v.rule, RiskOf(*f)), Reason: v.reason}
	if v.rule != nil {
		d.Message = v.rule.message
		d.riskFromRule = v.rule.risk != ""
	}
	if pt != nil {
		where := strconv.Quote(pt.text)
		if pt.via != "" {
			where += " (run by " + pt.via + ")"
		}
		d.Reason = where + ": " + v.reason
	}
	return d
}

func ruleRisk(r *rule, base tool.Risk) tool.Risk {
	if r != nil && r.risk != "" {
		return r.risk
	}
	return base
}

func (r *rule) refOrNil() *RuleRef {
	if r == nil {
		return nil
	}
	ref := r.ref
	return &ref
}

// label names a rule in a reason; nil is the default action.
func (p *Policy) label(r *rule) string {
	if r == nil {
		return "the default action (" + string(p.defaultAction) + ")"
	}
	return "rule " + r.ref.Label()
}
