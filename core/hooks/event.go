package hooks

import (
	"fmt"
	"sort"
	"strings"
)

// Event is a canonical hook event name.
type Event string

// The canonical events.
const (
	SessionStart        Event = "session_start"
	SessionEnd          Event = "session_end"
	BeforeAgent         Event = "before_agent"
	AfterAgent          Event = "after_agent"
	BeforeModel         Event = "before_model"
	AfterModel          Event = "after_model"
	BeforeToolSelection Event = "before_tool_selection"
	BeforeTool          Event = "before_tool"
	AfterTool           Event = "after_tool"
	OnError             Event = "on_error"
	OnFileChange        Event = "on_file_change"
	OnContextOverflow   Event = "on_context_overflow"
	OnApprovalRequest   Event = "on_approval_request"
	OnGitCommit         Event = "on_git_commit"
	SubagentStart       Event = "subagent_start"
	SubagentStop        Event = "subagent_stop"
	Custom              Event = "custom"
)

// Events lists every canonical event in lifecycle order.
var Events = []Event{
	SessionStart, SessionEnd, BeforeAgent, AfterAgent, BeforeModel, AfterModel,
	BeforeToolSelection, BeforeTool, AfterTool, OnError, OnFileChange,
	OnContextOverflow, OnApprovalRequest, OnGitCommit, SubagentStart, SubagentStop, Custom,
}

// aliases maps the names accepted in configuration to canonical events:
// the hook-protocol spec's names and the names other agent CLIs use.
var aliases = map[string]Event{
	"pre-execution": BeforeAgent, "post-execution": AfterAgent,
	"pre-agent": BeforeAgent, "post-agent": AfterAgent,
	"pre-model": BeforeModel, "post-model": AfterModel,
	"pre-tool-call": BeforeTool, "post-tool-call": AfterTool,
	"on-session-start": SessionStart, "on-session-end": SessionEnd,
	"on-error": OnError, "on-file-change": OnFileChange,
	"on-context-overflow": OnContextOverflow, "on-approval-request": OnApprovalRequest,
	"on-git-commit": OnGitCommit,
	"SubagentStart": SubagentStart, "SubagentStop": SubagentStop,

	"PreToolUse": BeforeTool, "PostToolUse": AfterTool,
	"UserPromptSubmit": BeforeAgent, "Stop": AfterAgent,
	"SessionStart": SessionStart, "SessionEnd": SessionEnd,
	"Notification": OnApprovalRequest, "PreCompact": OnContextOverflow,
	"PermissionRequest": OnApprovalRequest, "PostToolUseFailure": AfterTool,
	"StopFailure": OnError,
	"PreCompress": OnContextOverflow,
	"BeforeTool":  BeforeTool, "AfterTool": AfterTool,
	"BeforeAgent": BeforeAgent, "AfterAgent": AfterAgent,
	"BeforeModel": BeforeModel, "AfterModel": AfterModel,
	"BeforeToolSelection": BeforeToolSelection,
}

// ParseEvent turns a canonical name or an alias into an Event.
func ParseEvent(name string) (Event, error) {
	for _, e := range Events {
		if string(e) == name {
			return e, nil
		}
	}
	if e, ok := aliases[name]; ok {
		return e, nil
	}
	if err := noEquivalent(name); err != nil {
		return "", err
	}
	return "", fmt.Errorf("unknown hook event %q; use one of %s", name, strings.Join(eventNames(), ", "))
}

func eventNames() []string {
	out := make([]string, len(Events))
	for i, e := range Events {
		out[i] = string(e)
	}
	return out
}

// Aliases returns the accepted aliases of e, sorted.
func Aliases(e Event) []string {
	var out []string
	for a, c := range aliases {
		if c == e {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// Fields lists the event-specific data fields each event carries
// (requirement 9, seed 003); session_id is added to every event by the
// engine, and the agent adds session {id, user, startTime} to every event
// (session_end's has endTime, duration and messageCount too).
var Fields = map[Event][]string{
	SessionStart:        {"session_id", "source", "model", "config", "session"},
	SessionEnd:          {"session_id", "messages", "reason", "session"},
	BeforeAgent:         {"prompt", "context", "config", "session"},
	AfterAgent:          {"response", "tool_calls", "prompt", "metrics", "stop_hook_active", "session"},
	BeforeModel:         {"messages", "model", "options", "session"},
	AfterModel:          {"response", "tokens", "done_reason", "model", "messages", "options", "session"},
	BeforeToolSelection: {"available_tools", "model", "messages", "options", "session"},
	BeforeTool:          {"tool_name", "args", "tool_call_id", "session"},
	AfterTool:           {"tool_name", "args", "result", "tool_call_id", "metrics", "session"}, // and error, interrupted when the call failed
	OnError:             {"error", "operation", "session"},
	OnFileChange:        {"file", "changes", "tool_name", "kind", "display", "session"},
	OnContextOverflow:   {"context", "session"},
	OnApprovalRequest:   {"operation", "details", "requester", "tool_name", "args", "session"},
	OnGitCommit:         {"files", "message", "branch", "session"},
	SubagentStart:       {"agent_name", "agent_id", "description", "prompt", "model", "depth", "session"},
	SubagentStop:        {"agent_name", "agent_id", "result", "error", "turns", "session"},
	Custom:              {"eventName", "data", "source", "session"},
}

// Rewritable names the data field a hook may rewrite on each event.
var Rewritable = map[Event]string{
	BeforeTool:          "args",
	AfterTool:           "result",
	BeforeAgent:         "prompt",
	BeforeModel:         "messages",
	AfterModel:          "response",
	BeforeToolSelection: "available_tools",
}

// SampleData returns plausible data for e, for `ollm hooks test`.
func SampleData(e Event) map[string]any {
	d := sampleData(e)
	sess := map[string]any{"id": "sample", "user": "developer", "startTime": "2026-01-16T10:00:00Z"}
	if e == SessionEnd {
		sess["endTime"], sess["duration"], sess["messageCount"] = "2026-01-16T10:05:00Z", 300.0, 1
	}
	d["session"] = sess
	return d
}

func sampleData(e Event) map[string]any {
	hello := []any{map[string]any{"role": "user", "content": "hello"}}
	config := map[string]any{"model": "llama3.2", "temperature": nil}
	options := map[string]any{"temperature": 0.7}
	switch e {
	case SessionStart:
		return map[string]any{"source": "startup", "model": "llama3.2", "config": config}
	case SessionEnd:
		return map[string]any{"messages": hello, "reason": "other"}
	case BeforeAgent:
		return map[string]any{"prompt": "list the files in this directory", "context": map[string]any{}, "config": config}
	case AfterAgent:
		return map[string]any{"response": "There are three files.", "tool_calls": []any{}, "prompt": "list the files in this directory",
			"metrics": map[string]any{"duration": 1.5, "tokens": 120}, "stop_hook_active": false}
	case BeforeModel:
		return map[string]any{"model": "llama3.2", "messages": hello, "options": options}
	case AfterModel:
		return map[string]any{"response": "Hello!", "tokens": map[string]any{"prompt": 12, "completion": 3, "total": 15},
			"done_reason": "stop", "model": "llama3.2", "messages": hello, "options": options}
	case BeforeToolSelection:
		return map[string]any{"available_tools": []any{"read_file", "write_file", "shell"}, "model": "llama3.2", "messages": hello, "options": options}
	case BeforeTool:
		return map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls -la"}}
	case AfterTool:
		return map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls -la"}, "result": "total 0",
			"metrics": map[string]any{"duration": 0.02, "success": true}}
	case OnError:
		return map[string]any{"operation": "model", "error": map[string]any{"message": "the model server answered 500",
			"code": "server", "stack": "the model server answered 500"}}
	case OnFileChange:
		return map[string]any{"file": "README.md", "tool_name": "write_file", "kind": "edit", "display": "wrote README.md",
			"changes": []any{map[string]any{"path": "README.md", "type": "modified", "size": 120, "timestamp": "2026-01-16T10:05:30Z"}}}
	case OnContextOverflow:
		return map[string]any{"context": map[string]any{"used": 7000, "window": 8192, "messages": 12,
			"size": 7000, "maxSize": 8192, "utilization": 0.85}}
	case OnGitCommit:
		return map[string]any{"files": []any{"README.md"}, "message": "docs: readme", "branch": "main"}
	case SubagentStart:
		return map[string]any{"agent_name": "reviewer", "agent_id": "call_1", "description": "review the diff",
			"prompt": "Review the staged changes.", "model": "llama3.2", "depth": 1}
	case SubagentStop:
		return map[string]any{"agent_name": "reviewer", "agent_id": "call_1", "result": "No problems found.", "turns": 2}
	}
	d := map[string]any{}
	for _, f := range Fields[e] {
		d[f] = nil
	}
	return d
}
