package tui

import (
	"github.com/ollm/ollm/core/bus"
)

// Runtime is what the TUI needs from a session. Submit and Command start
// work and return at once; everything that follows arrives on Events.
type Runtime interface {
	// Submit starts a turn for prompt.
	Submit(prompt string) error
	// Cancel cancels the running turn (Ctrl-C); the session stays usable.
	Cancel()
	// Events delivers what the session does; it is closed when the session ends.
	Events() <-chan Event
	// Answer answers the confirmation request id; feedback is the text
	// typed with it (an elicitation's answer).
	Answer(id string, a bus.Answer, feedback string) error
	// Approve records the user's choice for a start-of-session approval
	// (an untrusted hook or a workspace MCP server): ok false skips it.
	Approve(id string, ok bool) error
	// Command runs a slash command other than /help and /quit and returns
	// text to show at once. started says it began work on the session (a
	// skill's turn, /compact, /reload, /model NAME, /clear) that reports
	// on Events and ends with TurnDone; no prompt runs meanwhile.
	Command(c Command) (text string, started bool, err error)
	// Status is the current status line data.
	Status() Status
	// Commands lists the session's own commands for the "/" menu
	// (menu.go): extensions' commands, skills, Claude and Gemini CLI
	// commands, MCP prompts.
	Commands() []MenuItem
}

// Status is what the status line shows.
type Status struct {
	Model      string
	Provider   string // "ollama", "openai"; optional
	Mode       string // approval mode: "default", "auto_edit", "plan", "yolo"; optional
	Sandbox    string // the shell's sandbox ("workspace-write, no network", "no sandbox"); optional
	Profile    string // profile name or workspace, optional
	Generation int    // profile generation; 0 unknown
	Pinned     bool   // the generation is pinned by a rollback
	MCP        []MCPServer
	Context    ContextUse
}

// MCPServer is one server's name and state ("ready", "starting", "failed", ...).
type MCPServer struct {
	Name  string
	State string
	Tools int
	Error string
}

// ContextUse is tokens used out of the model's window.
type ContextUse struct {
	Used, Window int
}
