package agent

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
)

// EventType says what an Event reports.
type EventType string

// Event types, in the order a turn produces them.
const (
	EvSessionStart  EventType = "session_start"  // the session began (or resumed); Text is the transcript path
	EvPrompt        EventType = "prompt"         // the final user prompt entered the conversation
	EvSystemMessage EventType = "system_message" // a hook's system message entered the context; Hook says which event
	EvNotice        EventType = "notice"         // something the user should know (a skipped hook, a compaction)
	EvModelStart    EventType = "model_start"    // a request went to the model; Turn is its number
	EvThinking      EventType = "thinking"       // Text is a reasoning delta
	EvContent       EventType = "content"        // Text is an answer delta (as streamed, before after_model)
	EvAssistant     EventType = "assistant"      // the whole reply: Text is what to display (after_model rewrite), Message the original
	EvToolCall      EventType = "tool_call"      // the model asked for a call; Tool.Args are the model's
	EvToolDecision  EventType = "tool_decision"  // the gate decided; Tool.Args are final, Tool.Decision set
	EvToolConfirm   EventType = "tool_confirm"   // confirmation asked over the bus; Tool.Confirm holds the details
	EvToolProgress  EventType = "tool_progress"  // Tool.Chunk is streamed output or progress
	EvToolResult    EventType = "tool_result"    // Tool.Result is what the model gets (after after_tool)
	EvFileChange    EventType = "file_change"    // a tool wrote Tool.Files
	EvContext       EventType = "context"        // Context holds the tracked use after a reply
	EvCompacted     EventType = "compacted"      // the conversation was compacted; Context holds the new use
	EvReset         EventType = "reset"          // the conversation was started over (/clear); Context holds the use
	EvBlocked       EventType = "blocked"        // a hook or the policy stopped an operation; Block says which and why
	EvHookFailure   EventType = "hook_failure"   // a hook failed (exit status, timeout, bad output, no start); Failure says which and how
	EvError         EventType = "error"          // Error says what failed
	// EvNotification: an extension (or an MCP server's log at warning or
	// above) told the user something; Notification says who, at what
	// level, and Text is its label ("[source] level: message").
	EvNotification EventType = "notification"
	EvTurnEnd      EventType = "turn_end" // one prompt finished; Text is the final displayed answer
	EvSessionEnd   EventType = "session_end"
)

// Event is one thing the loop did. Fields not relevant to Type are empty.
type Event struct {
	Type      EventType    `json:"type"`
	Time      time.Time    `json:"time"`
	SessionID string       `json:"sessionId"`
	Turn      int          `json:"turn,omitempty"`
	Text      string       `json:"text,omitempty"`
	Hook      string       `json:"hook,omitempty"` // the hook event a system message or block came from
	Message   *llm.Message `json:"message,omitempty"`
	Tool      *ToolEvent   `json:"tool,omitempty"`
	Usage     *llm.Usage   `json:"usage,omitempty"`
	Context   *ContextUse  `json:"context,omitempty"`
	Block     *Block       `json:"block,omitempty"`
	Failure   *HookFailure `json:"failure,omitempty"`
	// Notification is set for EvNotification.
	Notification *hooks.Notification `json:"notification,omitempty"`
	Error        string              `json:"error,omitempty"`
}

// ToolEvent describes one tool call as it goes through the gate.
type ToolEvent struct {
	ID       string           `json:"id"`
	Name     string           `json:"name"`
	Args     json.RawMessage  `json:"args,omitempty"`
	ReadOnly bool             `json:"readOnly,omitempty"`
	Decision *policy.Decision `json:"decision,omitempty"`
	Confirm  *policy.Details  `json:"confirm,omitempty"`
	Answer   string           `json:"answer,omitempty"` // allow_once, allow_always, deny
	Chunk    *tool.Chunk      `json:"chunk,omitempty"`
	Result   *tool.Result     `json:"result,omitempty"`
	Files    []string         `json:"files,omitempty"`
}

// ContextUse is the tracked context use.
type ContextUse struct {
	Used   int `json:"used"`   // tokens of the last request plus its reply
	Window int `json:"window"` // the model's context window
}

// Block says who stopped what.
type Block struct {
	Event  string `json:"event"`            // hook event, or "policy"
	By     string `json:"by,omitempty"`     // hook name or rule label
	Reason string `json:"reason,omitempty"` // as the hook or rule gave it
}

// HookFailure is one failed hook run: a failOpen hook's failure lets the
// operation go on, a failClosed one's blocks it.
type HookFailure struct {
	Hook       string `json:"hook"`  // qualified name
	Event      string `json:"event"` // the hook event
	Kind       string `json:"kind"`  // start, timeout, crash (a non-zero exit status or a signal), malformed
	ExitCode   int    `json:"exitCode"`
	DurationMS int64  `json:"durationMs"`
	Detail     string `json:"detail,omitempty"`
	FailClosed bool   `json:"failClosed,omitempty"`
}

// String is the line a user sees.
func (f HookFailure) String() string {
	what := f.Kind
	if f.ExitCode > 0 && f.Detail == "" {
		what = fmt.Sprintf("%s (exit status %d)", f.Kind, f.ExitCode)
	}
	s := fmt.Sprintf("hook %s (%s) failed after %d ms: %s", f.Hook, f.Event, f.DurationMS, what)
	if f.Detail != "" {
		s += ": " + f.Detail
	}
	if f.FailClosed {
		return s + "; it is failClosed, so the operation was blocked"
	}
	return s + "; the operation went on (failOpen)"
}
