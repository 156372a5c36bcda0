package agent

import "github.com/ollm/ollm/core/hooks"

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
