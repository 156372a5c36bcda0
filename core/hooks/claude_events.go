package hooks

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/ollm/ollm/schema"
)

// Claude Code has more hook events than ollm has lifecycle points. Those
// with an equivalent are aliases (event.go, and PermissionRequest here);
// the others are known by name so that a settings file or plugin naming
// them is read with one warning per event instead of failing.

// claudeOnly are Claude Code events ollm has no equivalent for, with why.
var claudeOnly = map[string]string{
	"Setup":               "ollm has no install or maintenance run",
	"PostToolBatch":       "ollm has no tool-batch event",
	"PermissionDenied":    "ollm has no event after a refused call; a before_tool or on_approval_request hook sees the call",
	"UserPromptExpansion": "ollm has no event for slash-command expansion",
	"TaskCreated":         "ollm has no task list events",
	"TaskCompleted":       "ollm has no task list events",
	"TeammateIdle":        "ollm has no agent teams",
	"InstructionsLoaded":  "ollm has no event for loading instruction files",
	"ConfigChange":        "ollm has no event for settings changes",
	"CwdChanged":          "ollm's working directory does not change during a session",
	"FileChanged":         "ollm has no file watcher (on_file_change is for files a tool wrote)",
	"WorktreeCreate":      "ollm does not manage git worktrees",
	"WorktreeRemove":      "ollm does not manage git worktrees",
	"PostCompact":         "ollm has no event after compaction",
	"Elicitation":         "ollm has no hook event for MCP elicitation",
	"ElicitationResult":   "ollm has no hook event for MCP elicitation",
}

// ErrNoEquivalent is wrapped by ParseEvent's error for an event of another
// agent CLI that ollm knows by name but has no equivalent for: such hooks
// are skipped with a warning, never an error.
var ErrNoEquivalent = errors.New("no ollm equivalent")

// noEquivalent is the error for a Claude Code event without an equivalent.
func noEquivalent(name string) error {
	why, ok := claudeOnly[name]
	if !ok {
		return nil
	}
	return fmt.Errorf("Claude Code event %q has no ollm equivalent (%s); its hooks are skipped: %w", name, why, ErrNoEquivalent)
}

// ClaudeOnlyEvents lists the Claude Code events ollm skips, sorted.
func ClaudeOnlyEvents() []string {
	out := make([]string, 0, len(claudeOnly))
	for n := range claudeOnly {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ClaudeEventName is the name a claude-dialect hook declared under alias
// is given for e: the alias when it is one of Claude's names for e
// (PermissionRequest and Notification are both on_approval_request),
// else Claude's usual name for e.
func ClaudeEventName(e Event, alias string) string {
	if alias != "" && aliases[alias] == e && claudeEventNames[alias] {
		return alias
	}
	return dialectEventName(claudeNames, e)
}

// claudeEventNames are the aliases that are Claude Code's own names.
var claudeEventNames = map[string]bool{
	"PreToolUse": true, "PostToolUse": true, "UserPromptSubmit": true, "Stop": true,
	"SessionStart": true, "SessionEnd": true, "Notification": true, "PreCompact": true,
	"PermissionRequest": true, "PostToolUseFailure": true, "StopFailure": true,
	"SubagentStart": true, "SubagentStop": true,
}

// claudeOutcome: Claude Code splits after_tool by the call's outcome. A
// hook declared as PostToolUseFailure runs only for a failed call (the
// data has an error), a claude-dialect PostToolUse hook only for one that
// succeeded. It is true for every other hook.
func claudeOutcome(h *Hook, e Event, data map[string]any) bool {
	if e == OnError && h.Def.Event == "StopFailure" {
		// Claude Code's StopFailure: a turn that ended on an API error;
		// its matcher selects the error type.
		return data["operation"] == "model" && Matches(h.Def.Matcher, claudeErrorType(data["error"]))
	}
	if e != AfterTool {
		return true
	}
	_, failed := data["error"]
	switch {
	case h.Def.Event == "PostToolUseFailure":
		return failed
	case h.Def.Event == "PostToolUse" && h.Dialect() == DialectClaude:
		return !failed
	}
	return true
}

// SessionInfo is what a session knows at an event beyond its id and
// directory: the transcript file, the permission mode in Claude's words
// and whether it started fresh or was resumed.
type SessionInfo struct {
	Transcript     string
	PermissionMode string // default, plan, acceptEdits, bypassPermissions
}

type sessionInfoKey struct{}

// WithSessionInfo returns ctx carrying info for the hooks of one Emit.
func WithSessionInfo(ctx context.Context, info SessionInfo) context.Context {
	return context.WithValue(ctx, sessionInfoKey{}, info)
}

// sessionFor is s with what ctx says about the session.
func sessionFor(ctx context.Context, s Session) Session {
	if info, ok := ctx.Value(sessionInfoKey{}).(SessionInfo); ok {
		if info.Transcript != "" {
			s.Transcript = info.Transcript
		}
		if info.PermissionMode != "" {
			s.PermissionMode = info.PermissionMode
		}
	}
	return s
}

// ClaudePermissionMode is Claude Code's name for an ollm policy mode.
func ClaudePermissionMode(mode string) string {
	switch mode {
	case "yolo":
		return "bypassPermissions"
	case "auto_edit":
		return "acceptEdits"
	case "plan":
		return "plan"
	}
	return "default"
}

// eventProblem reports a hook whose event cannot be registered: a warning
// when it is another CLI's event ollm has no equivalent for (the hook is
// skipped), an error otherwise.
func eventProblem(p schema.Problem, err error) schema.Problem {
	p.Message = err.Error()
	if errors.Is(err, ErrNoEquivalent) {
		p.Severity = "warning"
		p.Fix = "nothing to do: the hook cannot run in ollm; remove it from the profile to silence this"
		return p
	}
	p.Severity = "error"
	p.Fix = "use a canonical event name or an alias (see `ollm hooks list --help`)"
	return p
}

// claudeErrorType is Claude Code's StopFailure error type for an on_error
// error ({message, code}, code an llm error kind).
func claudeErrorType(v any) string {
	m, _ := v.(map[string]any)
	code, _ := m["code"].(string)
	switch code {
	case "auth":
		return "authentication_failed"
	case "rejected", "context_overflow", "model_missing", "config":
		return "invalid_request"
	case "server", "incomplete":
		return "server_error"
	}
	return "unknown"
}

// claudeErrorMessage is the message of an on_error error.
func claudeErrorMessage(v any) string {
	if m, ok := v.(map[string]any); ok {
		s, _ := m["message"].(string)
		return s
	}
	s, _ := v.(string)
	return s
}
