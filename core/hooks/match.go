package hooks

import (
	"path"
	"regexp"
	"sync"
)

// matchSubject returns the value a hook's matcher is tested against for
// an event: the tool name for tool events, the trigger for session start
// and compaction (as Claude Code does). ok is false when the event has no
// subject; a matcher then does not filter.
func matchSubject(e Event, data map[string]any) (string, bool) {
	key := ""
	switch e {
	case BeforeTool, AfterTool, OnApprovalRequest:
		key = "tool_name"
	case SessionStart:
		key = "source"
	case OnContextOverflow:
		key = "trigger"
	default:
		return "", false
	}
	s, ok := data[key].(string)
	return s, ok
}

// Matches reports whether pattern selects subject. An empty pattern and
// "*" select everything. Otherwise the pattern selects subject when it is
// equal to it, when it matches as a glob ("mcp:*") or when it matches as
// an anchored regular expression ("Edit|Write", "Notebook.*"), the way
// Claude Code matchers are written. The union errs towards running the
// hook, which is the safe side for guard hooks.
func Matches(pattern, subject string) bool {
	if pattern == "" || pattern == "*" || pattern == subject {
		return true
	}
	if ok, err := path.Match(pattern, subject); err == nil && ok {
		return true
	}
	re := compileMatcher(pattern)
	return re != nil && re.MatchString(subject)
}

var matcherCache sync.Map // pattern -> *regexp.Regexp (nil when invalid)

func compileMatcher(p string) *regexp.Regexp {
	if v, ok := matcherCache.Load(p); ok {
		return v.(*regexp.Regexp)
	}
	re, err := regexp.Compile("^(?:" + p + ")$")
	if err != nil {
		re = nil
	}
	matcherCache.Store(p, re)
	return re
}

// Plan returns the hooks of reg that run for e with data, in order.
func Plan(reg *Registry, e Event, data map[string]any) []*Hook {
	all := reg.ForEvent(e)
	subject, has := matchSubject(e, data)
	out := all[:0:0]
	for _, h := range all {
		if !claudeOutcome(h, e, data) {
			continue
		}
		if h.Def.Matcher == "" || !has || Matches(h.Def.Matcher, subject) ||
			(h.Dialect() == DialectClaude && claudeMatches(h.Def.Matcher, e, data)) ||
			(h.Dialect() == DialectGemini && Matches(h.Def.Matcher, GeminiToolName(subject))) {
			out = append(out, h)
		}
	}
	return out
}

// claudeMatches tests a claude-dialect matcher against the names Claude
// Code knows the call of a tool event by (claudeMatchNames).
func claudeMatches(pattern string, e Event, data map[string]any) bool {
	if _, ok := data["tool_name"].(string); !ok || e == SessionStart || e == OnContextOverflow {
		return false
	}
	for _, n := range claudeMatchNames(data) {
		if Matches(pattern, n) {
			return true
		}
	}
	return false
}
