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
	Custom              Event = "custom"
)

// Events lists every canonical event in lifecycle order.
var Events = []Event{
	SessionStart, SessionEnd, BeforeAgent, AfterAgent, BeforeModel, AfterModel,
	BeforeToolSelection, BeforeTool, AfterTool, OnError, OnFileChange,
	OnContextOverflow, OnApprovalRequest, OnGitCommit, Custom,
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

	"PreToolUse": BeforeTool, "PostToolUse": AfterTool,
	"UserPromptSubmit": BeforeAgent, "Stop": AfterAgent,
	"SessionStart": SessionStart, "SessionEnd": SessionEnd,
	"Notification": OnApprovalRequest, "PreCompact": OnContextOverflow,
	"PermissionRequest": OnApprovalRequest, "PostToolUseFailure": AfterTool,
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
// (requirement 9); session_id is added to every event by the engine.
var Fields = map[Event][]string{
	SessionStart:        {"session_id", "source", "model"},
	SessionEnd:          {"session_id", "messages", "reason"},
	BeforeAgent:         {"prompt", "context"},
	AfterAgent:          {"response", "tool_calls"},
	BeforeModel:         {"messages", "model"},
	AfterModel:          {"response", "tokens"},
	BeforeToolSelection: {"available_tools", "model", "messages"},
	BeforeTool:          {"tool_name", "args", "tool_call_id"},
	AfterTool:           {"tool_name", "args", "result", "tool_call_id"}, // and error, interrupted when the call failed
	OnError:             {"error", "operation"},
	OnFileChange:        {"file", "changes"},
	OnContextOverflow:   {"context"},
	OnApprovalRequest:   {"operation", "details", "requester", "tool_name", "args"},
	OnGitCommit:         {"files", "message", "branch"},
	Custom:              {"eventName", "data", "source"},
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
	switch e {
	case SessionStart:
		return map[string]any{"source": "startup"}
	case SessionEnd:
		return map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hello"}}}
	case BeforeAgent:
		return map[string]any{"prompt": "list the files in this directory", "context": map[string]any{}}
	case AfterAgent:
		return map[string]any{"response": "There are three files.", "tool_calls": []any{}}
	case BeforeModel:
		return map[string]any{"model": "llama3.2", "messages": []any{map[string]any{"role": "user", "content": "hello"}}}
	case AfterModel:
		return map[string]any{"response": "Hello!", "tokens": map[string]any{"prompt": 12, "completion": 3}}
	case BeforeToolSelection:
		return map[string]any{"available_tools": []any{"read_file", "write_file", "shell"}, "model": "llama3.2",
			"messages": []any{map[string]any{"role": "user", "content": "hello"}}}
	case BeforeTool:
		return map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls -la"}}
	case AfterTool:
		return map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls -la"}, "result": "total 0"}
	}
	d := map[string]any{}
	for _, f := range Fields[e] {
		d[f] = nil
	}
	return d
}
