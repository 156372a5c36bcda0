package tui

import (
	"encoding/json"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/policy"
)

// Event is one thing the session reports; each type below is also a
// tea.Msg the Model handles.
type Event interface{ event() }

// ContentDelta is a piece of the streamed answer.
type ContentDelta struct{ Text string }

// ThinkingDelta is a piece of the model's reasoning.
type ThinkingDelta struct{ Text string }

// AssistantDone replaces the streamed answer with what is to be displayed
// (after an after_model rewrite). Empty Text keeps the streamed one.
type AssistantDone struct{ Text string }

// ToolStarted is a tool call the model asked for.
type ToolStarted struct {
	ID, Name string
	Args     json.RawMessage
}

// ToolProgress is streamed output or progress of a running call.
type ToolProgress struct {
	ID          string
	Text        string
	Message     string
	Done, Total float64
	Args        json.RawMessage // final arguments, once the gate decided
	Tool        string          // the name the policy judged ("server:tool" for an MCP tool), once the gate decided
}

// ToolStatus is where a call card is.
type ToolStatus string

const (
	ToolRunning ToolStatus = "running"
	ToolAsking  ToolStatus = "asking"
	ToolOK      ToolStatus = "ok"
	ToolError   ToolStatus = "error"
	ToolDenied  ToolStatus = "denied"
)

// ToolFinished is the outcome of a call.
type ToolFinished struct {
	ID      string
	Status  ToolStatus // ToolOK, ToolError or ToolDenied
	Display string     // what the user sees
	Error   string
	Sandbox string // the sandbox a command ran in ("workspace-write, no network"), if any
}

// ConfirmRequested asks the user about a call.
type ConfirmRequested struct {
	ID      string // the bus request id
	CallID  string // the tool call it is about, when known
	Details policy.Details
}

// The confirmations that are not tool calls (bus.ElicitTool,
// bus.SampleTool), as the views switch on them.
const (
	ElicitTool = bus.ElicitTool
	SampleTool = bus.SampleTool
)

// ConfirmResolved says a request was answered elsewhere or withdrawn.
type ConfirmResolved struct {
	ID     string
	Answer string
	Reason string
}

// Blocked says a hook or the policy stopped an operation.
type Blocked struct{ Event, By, Reason string }

// SystemMessage is a hook's message that entered the context.
type SystemMessage struct{ Hook, Text string }

// Notice is something the user should know.
type Notice struct{ Text string }

// Note is what an extension (or an MCP server's warning) shows the user: a
// notification, or a command's display or error line. Source is set by
// ollm, never by the extension, and always shown in brackets. Level is
// info, success, warn, error, or "display" for a command's note.
type Note struct{ Source, Level, Text string }

// InsertText puts Text into the input box at the cursor (an extension
// command's insert action); nothing is sent.
type InsertText struct{ Text string }

// Replayed is a message of a resumed session's history, shown as it was
// before the first new prompt: Role "user" or "assistant".
type Replayed struct{ Role, Text string }

// ErrorEvent is a failure the session survives.
type ErrorEvent struct{ Err string }

// TurnDone says the prompt finished; Cancelled when Ctrl-C stopped it.
type TurnDone struct {
	Text      string
	Cancelled bool
	Err       string
	Shown     bool // Err was shown already, as an ErrorEvent of this turn
}

// ContextChanged is the tracked context use.
type ContextChanged struct{ Used, Window int }

// MCPChanged is a server's new state.
type MCPChanged struct{ Server MCPServer }

// Approval is one thing to approve at session start.
type Approval struct {
	ID      string
	Kind    string // "hook" or "mcp"
	Name    string
	Detail  string // command line or URL
	Changed bool   // approved before with other content
	From    string // where it comes from: "this workspace", "--ext", "a downloaded extension"
}

// ApprovalsNeeded lists what needs approval before the session starts.
type ApprovalsNeeded struct{ Items []Approval }

// SessionEnded says the runtime is gone; the program quits.
type SessionEnded struct{}

func (ContentDelta) event()     {}
func (ThinkingDelta) event()    {}
func (AssistantDone) event()    {}
func (ToolStarted) event()      {}
func (ToolProgress) event()     {}
func (ToolFinished) event()     {}
func (ConfirmRequested) event() {}
func (ConfirmResolved) event()  {}
func (Blocked) event()          {}
func (SystemMessage) event()    {}
func (Notice) event()           {}
func (Replayed) event()         {}
func (ErrorEvent) event()       {}
func (TurnDone) event()         {}
func (ContextChanged) event()   {}
func (MCPChanged) event()       {}
func (ApprovalsNeeded) event()  {}
func (SessionEnded) event()     {}

func (Note) event()       {}
func (InsertText) event() {}
