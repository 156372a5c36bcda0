package agent

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/internal/claudeperm"
	"github.com/ollm/ollm/schema"
)

// turnLimits narrow one prompt that the user ran as a command or skill
// with Claude Code front matter: allowed-tools offers only the tools it
// names, and a call outside its rules (Bash(git status:*)) is refused;
// model answers that prompt with another model. They never widen: every
// call still passes the session's hooks, policy and confirmation.
type turnLimits struct {
	by    string         // "/review (.claude/commands/review.md)"
	specs []string       // allowed-tools as written
	tools []string       // tool patterns offered; nil: no restriction
	pol   *policy.Policy // allow rules of allowed-tools, default deny
	model string
	// loaded: set by a skill the model loaded (skillLoaded), for the
	// rest of that prompt only.
	loaded bool
}

// claudeModels are Claude Code's model names, which no local server
// serves: a command naming one keeps the session's model.
func claudeModel(m string) bool {
	switch strings.ToLower(m) {
	case "sonnet", "opus", "haiku", "inherit", "default", "opusplan":
		return true
	}
	return strings.HasPrefix(strings.ToLower(m), "claude-")
}

// limitTurn sets the limits of sk for the next prompt; endTurn clears them.
func (s *Session) limitTurn(sk skills.Skill) {
	by := "/" + sk.Qualified()
	if sk.File != "" && sk.Extension == "" {
		f := sk.File
		if rel, err := filepath.Rel(s.cfg.Cwd, f); err == nil && !strings.HasPrefix(rel, "..") {
			f = rel
		}
		by += " (" + f + ")"
	}
	lim := &turnLimits{by: by}
	if m := sk.Model; m != "" {
		if claudeModel(m) {
			s.publish(Event{Type: EvNotice, Text: fmt.Sprintf("%s: model %q is Claude Code's; this prompt runs on the session's model %s (name a model your server has to switch)", by, m, s.Model())})
		} else {
			lim.model = m
		}
	}
	if len(sk.AllowedTools) > 0 {
		var rules []schema.PolicyRule
		lim.tools = []string{}
		for _, spec := range sk.AllowedTools {
			r, err := claudeperm.Convert(spec, "allow", "allowed-tools "+spec, claudeperm.Base{Root: s.cfg.Cwd})
			if err != nil {
				s.publish(Event{Type: EvNotice, Text: fmt.Sprintf("%s: allowed-tools %q skipped: %v; the prompt runs without that tool", by, spec, err)})
				continue
			}
			rules = append(rules, r.Policy)
			lim.tools = append(lim.tools, r.Tools...)
			lim.specs = append(lim.specs, spec)
		}
		pol, err := policy.Compile(schema.Policy{DefaultAction: "deny", Rules: rules}, policy.Options{})
		if err != nil {
			s.publish(Event{Type: EvNotice, Text: fmt.Sprintf("%s: allowed-tools cannot be applied (%v); the prompt runs with no tools", by, err)})
			pol, lim.tools = nil, []string{}
		}
		lim.pol = pol
	}
	s.limits = lim
}

func (s *Session) endTurn() { s.limits = nil }

// skillLoaded applies the allowed-tools of a skill the model loaded with
// activate_skill to the rest of the prompt, as they apply to a prompt the
// user ran as /skill: only the tools they name are offered and run, and
// activate_skill, so the skill's own files can still be read. A prompt
// that is narrowed already stays as it is (a loaded skill never widens
// it); a skill's model does not switch a prompt under way.
func (s *Session) skillLoaded(sk skills.Skill) {
	if len(sk.AllowedTools) == 0 || s.limits != nil {
		return
	}
	sk.Model = ""
	s.limitTurn(sk)
	s.limits.loaded = true
	s.publish(Event{Type: EvNotice, Text: fmt.Sprintf("%s: allowed-tools apply to the rest of this prompt: %s", s.limits.by, strings.Join(s.limits.specs, ", "))})
}

// endLoaded ends the limits a loaded skill set, with its prompt.
func (s *Session) endLoaded() {
	if s.limits != nil && s.limits.loaded {
		s.limits = nil
	}
}

// turnModel is the model of this prompt.
func (s *Session) turnModel() string {
	if s.limits != nil && s.limits.model != "" {
		return s.limits.model
	}
	return s.Model()
}

// turnTools keeps the definitions allowed-tools offers.
func (s *Session) turnTools(defs []tool.Definition) []tool.Definition {
	if s.limits == nil || s.limits.tools == nil {
		return defs
	}
	var out []tool.Definition
	for _, d := range defs {
		if s.limits.offers(d.Name) || s.limits.offers(s.policyName(d.Name)) {
			out = append(out, d)
		}
	}
	return out
}

// policyName is the name the policy knows a tool by (an MCP tool's
// server:tool, whatever the model calls it).
func (s *Session) policyName(name string) string {
	if s.cfg.Tools == nil {
		return name
	}
	if t, ok := s.cfg.Tools.Get(name); ok {
		return policy.FactsOf(t).Name
	}
	return name
}

func (l *turnLimits) offers(name string) bool {
	if l.loaded && name == skills.ToolName {
		return true // the loaded skill's files stay readable
	}
	for _, p := range l.tools {
		if ok, _ := doublestar.Match(strings.TrimPrefix(p, "mcp:"), name); ok {
			return true
		}
	}
	return false
}

// turnRefusal refuses a call outside allowed-tools (also one the model
// makes to a tool it was not offered).
func (s *Session) turnRefusal(n int, p *pending, facts policy.Facts) *pending {
	l := s.limits
	if l == nil || l.tools == nil {
		return nil
	}
	if l.loaded && p.call.Name == skills.ToolName {
		return nil
	}
	if l.pol != nil && (l.offers(p.call.Name) || l.offers(facts.Name)) {
		if d, err := l.pol.DecideJSON(facts, p.args); err == nil && d.Action == policy.Allow {
			return nil
		}
	}
	allowed := "no tools"
	if len(l.specs) > 0 {
		allowed = strings.Join(l.specs, ", ")
	}
	reason := fmt.Sprintf("%s allows only %s (allowed-tools)", l.by, allowed)
	s.publish(Event{Type: EvBlocked, Turn: n, Block: &Block{Event: "policy", By: "allowed-tools of " + l.by, Reason: reason},
		Tool: &ToolEvent{ID: p.call.ID, Name: p.call.Name, Args: p.args}})
	return p.refuse(tool.ErrPolicy, "refused: %s", reason)
}
