package policy

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/ollm/ollm/schema"
)

// Action is what the policy decides for a call.
type Action string

const (
	Allow Action = "allow" // run without asking
	Ask   Action = "ask"   // ask the user first
	Deny  Action = "deny"  // refuse; the model is told why
)

// severity orders actions: deny over ask over allow.
func (a Action) severity() int {
	switch a {
	case Deny:
		return 2
	case Ask:
		return 1
	default:
		return 0
	}
}

func parseAction(s string) (Action, bool) {
	switch a := Action(s); a {
	case Allow, Ask, Deny:
		return a, true
	}
	return "", false
}

// Mode adjusts every decision.
type Mode string

const (
	ModeDefault  Mode = "default"   // rules, then the default action
	ModeAutoEdit Mode = "auto_edit" // edits run without asking; deny still holds
	ModePlan     Mode = "plan"      // read-only: anything that is not read-only is denied
	ModeYolo     Mode = "yolo"      // everything runs except what a deny rule refuses
)

// ParseMode checks a mode name; "" is the default mode.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return ModeDefault, nil
	case ModeDefault, ModeAutoEdit, ModePlan, ModeYolo:
		return m, nil
	}
	return "", fmt.Errorf("unknown policy mode %q: use default, auto_edit, plan or yolo", s)
}

// DefaultShellTools maps the shell-like tools to the argument that holds
// their command line.
var DefaultShellTools = map[string]string{"shell": "command"}

// Options are the facts Compile needs beyond the profile's policy.
type Options struct {
	// Layers[i] names the layer rule i came from (schema.Resolved's
	// RuleScopes); it only labels decisions. May be shorter than the rules.
	Layers []schema.Scope
	// ShellTools maps each shell-like tool to its command argument; nil
	// means DefaultShellTools.
	ShellTools map[string]string
}

// Policy is a compiled policy. It is immutable and safe for concurrent use.
type Policy struct {
	rules         []*rule
	defaultAction Action
	mode          Mode
	shell         map[string]string
	byTool        *sync.Map     // tool name (+ "\x00mcp") -> []*rule whose pattern matches
	cached        *atomic.Int32 // entries in byTool, bounded by maxCached
}

// maxCached bounds the per-tool cache against a model inventing names.
const maxCached = 4096

// Compile checks and compiles a profile's policy. Errors name the rule by
// index and name and say what to fix.
func Compile(p schema.Policy, o Options) (*Policy, error) {
	out := &Policy{shell: o.ShellTools, byTool: &sync.Map{}, cached: &atomic.Int32{}}
	if out.shell == nil {
		out.shell = DefaultShellTools
	}
	var ok bool
	if out.defaultAction, ok = parseAction(p.DefaultAction); !ok {
		if p.DefaultAction != "" {
			return nil, fmt.Errorf("policy.defaultAction %q: use allow, deny or ask", p.DefaultAction)
		}
		out.defaultAction = Ask
	}
	m, err := ParseMode(p.Mode)
	if err != nil {
		return nil, fmt.Errorf("policy.mode: %w", err)
	}
	out.mode = m
	for i, r := range p.Rules {
		layer := ""
		if i < len(o.Layers) {
			layer = string(o.Layers[i])
		}
		cr, err := compileRule(i, r, layer)
		if err != nil {
			return nil, err
		}
		out.rules = append(out.rules, cr)
	}
	return out, nil
}

// MustCompile is Compile for rules known to be valid (tests, built-ins).
func MustCompile(p schema.Policy, o Options) *Policy {
	c, err := Compile(p, o)
	if err != nil {
		panic(err)
	}
	return c
}

// Mode is the policy's mode.
func (p *Policy) Mode() Mode { return p.mode }

// DefaultAction is the action when no rule matches.
func (p *Policy) DefaultAction() Action { return p.defaultAction }

// WithMode returns a copy of p in mode m (the --mode flag, a mode switch
// in the TUI).
func (p *Policy) WithMode(m Mode) *Policy {
	c := *p
	c.mode = m
	return &c
}

// WithRules returns a copy of p with more rules after its own, e.g. the
// "always allow" answers of this session. They are labelled with layer.
func (p *Policy) WithRules(layer schema.Scope, rules ...schema.PolicyRule) (*Policy, error) {
	c := *p
	c.byTool, c.cached = &sync.Map{}, &atomic.Int32{}
	c.rules = append([]*rule(nil), p.rules...)
	for _, r := range rules {
		cr, err := compileRule(len(c.rules), r, string(layer))
		if err != nil {
			return nil, err
		}
		c.rules = append(c.rules, cr)
	}
	return &c, nil
}

// shellArg reports whether name is a shell-like tool and which argument
// holds its command line.
func (p *Policy) shellArg(name string) (string, bool) {
	a, ok := p.shell[name]
	return a, ok
}
