package agent

import (
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
)

// hookSessionInfo is what hooks are told about the session beyond its id:
// the transcript file and the permission mode (Claude Code's words for
// the policy mode).
func (s *Session) hookSessionInfo() hooks.SessionInfo {
	var info hooks.SessionInfo
	if s.cfg.Transcript != nil {
		info.Transcript = s.cfg.Transcript.Path()
	}
	if p := s.Policy(); p != nil {
		info.PermissionMode = hooks.ClaudePermissionMode(string(p.Mode()))
	}
	return info
}

// afterToolData is what after_tool hooks read; a failed call also has its
// error (and interrupted when it was cancelled), which Claude Code's
// PostToolUseFailure hooks read.
func afterToolData(p *pending) map[string]any {
	d := map[string]any{"tool_name": p.call.Name, "args": argsValue(p.args), "result": p.res.ForModel, "tool_call_id": p.call.ID,
		"metrics": map[string]any{"duration": p.dur.Seconds(), "success": p.res.Error == nil}}
	withMCP(d, p.t)
	if e := p.res.Error; e != nil {
		d["error"] = string(e.Kind) + ": " + e.Message
		d["interrupted"] = e.Kind == tool.ErrCancelled
	}
	return d
}

// alwaysText tells the confirmation which rule "always" saves and the
// narrower one it may save instead, so the user sees what they grant.
func (s *Session) alwaysText(det *policy.Details, d policy.Decision) {
	pol := s.Policy()
	if rules, _ := pol.AlwaysAllow(d); len(rules) > 0 {
		det.Always = policy.RulesText(rules)
	}
	if rules, ok := pol.AlwaysAllowNarrow(d); ok {
		det.AlwaysNarrow = policy.RulesText(rules)
	}
}
