package agent

import "github.com/ollm/ollm/core/tool"

// ToolContext gives text to append to the result of one of the model's
// tool calls: the context files (AGENTS.md, GEMINI.md, CLAUDE.md) of the
// subdirectories the call worked in, found on demand (core/runtime).
// Forget is called when the conversation no longer holds what was added
// (a reset, a compaction), so it is given again.
type ToolContext interface {
	Add(name string, inv tool.Invocation, res tool.Result) string
	Forget()
}

// toolContext appends Config.ToolContext's text to the result of a call
// that ran and succeeded, before after_tool, so hooks see what the model
// will read.
func (s *Session) toolContext(p *pending) {
	if s.cfg.ToolContext == nil || p.refused || p.res.Error != nil {
		return
	}
	if extra := s.cfg.ToolContext.Add(p.call.Name, p.inv, p.res); extra != "" {
		p.res.ForModel += extra
	}
}

func (s *Session) forgetToolContext() {
	if s.cfg.ToolContext != nil {
		s.cfg.ToolContext.Forget()
	}
}
