package hooks

import (
	"encoding/json"
	"time"
)

// ProtocolVersion is the version of the hook protocol ollm speaks.
const ProtocolVersion = "1.0.0"

// Metadata is the metadata block of every ollm-dialect input.
type Metadata struct {
	Timestamp string `json:"timestamp"`
	HookName  string `json:"hookName"`
	// HookVersion is the hook's extension's version; "" for a hook
	// declared in a profile, which has none.
	HookVersion string `json:"hookVersion"`
	// EventAlias is the name the hook was declared under when it is not
	// the canonical one ("pre-tool-call" for before_tool).
	EventAlias      string `json:"eventAlias,omitempty"`
	Extension       string `json:"extension,omitempty"`
	SessionID       string `json:"sessionId"`
	Cwd             string `json:"cwd"`
	ProtocolVersion string `json:"protocolVersion"`
}

// Input is what an ollm-dialect hook reads on stdin. Extra carries the
// fields earlier hooks of the same event returned beyond the known ones.
// ID is set only for persistent hooks, to pair answers with requests.
//
// A hook declared under a name of seed 003 (the hook-protocol
// specification: "pre-tool-call", "on-session-start", ...) reads that
// specification's layout as well: Event is the name it was declared
// under, and Context holds the event data as Data does, plus "tool" (the
// tool's name) on tool events. Other hooks get neither.
type Input struct {
	// Type is "event" on a persistent hook's channel, where every line
	// ollm sends has a type (seed 002); empty for a process hook.
	Type     string         `json:"type,omitempty"`
	ID       uint64         `json:"id,omitempty"`
	Event    Event          `json:"event"`
	Data     map[string]any `json:"data"`
	Context  any            `json:"context,omitempty"` // a map; any, so an empty one is still sent
	Extra    map[string]any `json:"extra,omitempty"`
	Metadata Metadata       `json:"metadata"`
}

// Session describes the session events belong to.
type Session struct {
	ID  string
	Cwd string
	// Transcript and PermissionMode are what claude-dialect hooks read as
	// transcript_path and permission_mode; WithSessionInfo sets them per
	// event.
	Transcript     string
	PermissionMode string
	// claudeTranscript is the Claude-format copy of Transcript a
	// claude-dialect hook is given (Engine.claudeTranscript).
	claudeTranscript string
	// User and Started fill the session block of events ollm raises
	// outside the agent (custom events).
	User    string
	Started time.Time
}

// BuildInput encodes the input of hook h for event e in h's dialect.
func BuildInput(h *Hook, e Event, data, extra map[string]any, s Session, now time.Time, id uint64) ([]byte, error) {
	var v any
	switch h.Dialect() {
	case DialectClaude:
		v = withID(claudeHookInput(h, e, data, s), id)
	case DialectGemini:
		v = withID(geminiInput(e, data, s, now), id)
	default:
		in := Input{Type: eventType(id), ID: id, Event: e, Data: data, Extra: extra, Metadata: Metadata{
			Timestamp: now.UTC().Format(time.RFC3339Nano), HookName: h.Name, HookVersion: h.Version,
			EventAlias: h.alias(e), Extension: h.Extension, SessionID: s.ID, Cwd: s.Cwd, ProtocolVersion: ProtocolVersion,
		}}
		if spec003Names[h.Declared] {
			in.Event, in.Context = Event(h.Declared), spec003Context(data)
		}
		v = in
	}
	return json.Marshal(v)
}

// spec003Names are the event names of seed 003, the hook-protocol
// specification, other than "custom", which is ollm's own name too.
var spec003Names = map[string]bool{
	"pre-execution": true, "post-execution": true, "pre-tool-call": true, "post-tool-call": true,
	"on-error": true, "on-file-change": true, "on-git-commit": true, "on-session-start": true,
	"on-session-end": true, "on-context-overflow": true, "on-approval-request": true,
}

// spec003Context is the specification's context: the event data, with
// the tool's name also under the specification's key, "tool".
func spec003Context(data map[string]any) map[string]any {
	c := make(map[string]any, len(data)+1)
	for k, v := range data {
		c[k] = v
	}
	if tool, ok := data["tool_name"]; ok {
		c["tool"] = tool
	}
	return c
}

// alias is the name h was declared under for e, "" when it is e's own.
func (h *Hook) alias(e Event) string {
	if h.Declared == "" || h.Declared == string(e) {
		return ""
	}
	return h.Declared
}

func withID(m map[string]any, id uint64) map[string]any {
	if id != 0 {
		m["id"], m["type"] = id, eventType(id)
	}
	return m
}

var claudeNames = map[Event]string{
	BeforeTool: "PreToolUse", AfterTool: "PostToolUse", BeforeAgent: "UserPromptSubmit",
	AfterAgent: "Stop", SessionStart: "SessionStart", SessionEnd: "SessionEnd",
	OnContextOverflow: "PreCompact", OnApprovalRequest: "Notification",
	SubagentStart: "SubagentStart", SubagentStop: "SubagentStop",
}

var geminiNames = map[Event]string{
	BeforeTool: "BeforeTool", AfterTool: "AfterTool", BeforeAgent: "BeforeAgent",
	AfterAgent: "AfterAgent", BeforeModel: "BeforeModel", AfterModel: "AfterModel",
	BeforeToolSelection: "BeforeToolSelection", SessionStart: "SessionStart",
	SessionEnd: "SessionEnd", OnContextOverflow: "PreCompress", OnApprovalRequest: "Notification",
}

// dialectEventName is the name a dialect knows e by.
func dialectEventName(names map[Event]string, e Event) string {
	if n, ok := names[e]; ok {
		return n
	}
	return string(e)
}

// claudeInput is Claude Code's hook input shape.
func claudeInput(e Event, data map[string]any, s Session) map[string]any {
	m := map[string]any{
		"hook_event_name": dialectEventName(claudeNames, e),
		"session_id":      s.ID,
		"cwd":             s.Cwd,
		"transcript_path": str(data["transcript_path"]),
		"permission_mode": "default",
	}
	if tool, ok := data["tool_name"].(string); ok {
		m["tool_name"] = claudeCallName(data)
		if args, ok := data["args"].(map[string]any); ok {
			m["tool_input"] = claudeArgs(tool, args, true)
		} else {
			copyAs(m, data, "args", "tool_input")
		}
	}
	copyAs(m, data, "result", "tool_response")
	copyAs(m, data, "prompt", "prompt")
	copyAs(m, data, "source", "source")
	copyAs(m, data, "reason", "reason")
	copyAs(m, data, "trigger", "trigger")
	copyAs(m, data, "message", "message")
	if e == AfterAgent {
		m["stop_hook_active"] = data["stop_hook_active"] == true
	}
	claudeSubagent(e, m, data)
	return m
}

// geminiInput is Gemini CLI's hook input shape.
func geminiInput(e Event, data map[string]any, s Session, now time.Time) map[string]any {
	m := map[string]any{
		"hook_event_name": dialectEventName(geminiNames, e),
		"session_id":      s.ID,
		"cwd":             s.Cwd,
		"transcript_path": str(data["transcript_path"]),
		"timestamp":       now.UTC().Format(time.RFC3339Nano),
	}
	if tool, ok := data["tool_name"].(string); ok {
		m["tool_name"] = GeminiToolName(tool)
		if args, ok := data["args"].(map[string]any); ok {
			m["tool_input"] = geminiArgs(tool, args, true)
		} else {
			copyAs(m, data, "args", "tool_input")
		}
	}
	copyAs(m, data, "result", "tool_response")
	copyAs(m, data, "prompt", "prompt")
	copyAs(m, data, "response", "prompt_response")
	switch e {
	case BeforeModel, BeforeToolSelection:
		m["llm_request"] = geminiRequest(e, data)
	case AfterModel:
		m["llm_request"] = geminiRequest(e, data)
		m["llm_response"] = geminiResponse(data)
	case AfterAgent:
		m["stop_hook_active"] = data["stop_hook_active"] == true
	}
	return m
}

func copyAs(dst, src map[string]any, from, to string) {
	if v, ok := src[from]; ok {
		dst[to] = v
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
