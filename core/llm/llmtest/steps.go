package llmtest

import (
	"strings"
	"time"
)

type stepKind uint8

const (
	stepText stepKind = iota + 1
	stepThinking
	stepToolCall
	stepDone
	stepTokens
	stepStreamError
	stepHTTPError
	stepHang
	stepWait
	stepDrop
	stepEnd
	stepSignal
	stepPause
	stepRaw
)

// Step is one piece of a scripted reply. Build steps with the functions
// below and queue them with Reply.
type Step struct {
	kind     stepKind
	chunks   []string // text or thinking, one wire chunk each
	call     Call
	noID     bool
	reason   string
	prompt   int
	complete int
	status   int
	msg      string
	wait     <-chan struct{}
	signal   chan<- struct{}
	pause    time.Duration
}

// Call is a scripted tool call.
type Call struct {
	ID   string
	Name string
	Args map[string]any
}

// Text streams the answer as one chunk per argument.
func Text(chunks ...string) Step { return Step{kind: stepText, chunks: chunks} }

// Words streams s one word (with its following space) per chunk, the way
// models stream tokens.
func Words(s string) Step { return Text(splitWords(s)...) }

// Thinking streams reasoning, one chunk per argument.
func Thinking(chunks ...string) Step { return Step{kind: stepThinking, chunks: chunks} }

// ToolCall sends one tool call. Like Ollama since 0.12, the server gives
// it an id ("call_" and a counter); OpenAI-compatible servers do too.
func ToolCall(name string, args map[string]any) Step {
	return Step{kind: stepToolCall, call: Call{Name: name, Args: args}}
}

// ToolCallWithID sends one tool call with the given id.
func ToolCallWithID(id, name string, args map[string]any) Step {
	return Step{kind: stepToolCall, call: Call{ID: id, Name: name, Args: args}}
}

// ToolCallNoID sends a tool call without an id, as older Ollama servers
// and some OpenAI-compatible servers do.
func ToolCallNoID(name string, args map[string]any) Step {
	return Step{kind: stepToolCall, call: Call{Name: name, Args: args}, noID: true}
}

// Done sets the done_reason (finish_reason) of the final chunk. Without it
// the reason is "stop" (OpenAI: "tool_calls" when the reply called tools).
func Done(reason string) Step { return Step{kind: stepDone, reason: reason} }

// Tokens sets the token counts the final chunk reports. Without it the
// prompt count is the characters of all messages / 4 + 1 and the
// completion count is the number of chunks sent.
func Tokens(prompt, completion int) Step {
	return Step{kind: stepTokens, prompt: prompt, complete: completion}
}

// StreamError ends the stream with an error object after what came
// before, as a server does when the model fails mid-reply.
func StreamError(msg string) Step { return Step{kind: stepStreamError, msg: msg} }

// HTTPError answers the whole request with status and an error body in
// the server's format. It must be the only step of its reply.
func HTTPError(status int, msg string) Step {
	return Step{kind: stepHTTPError, status: status, msg: msg}
}

// Hang stops writing and holds the response open until the client goes
// away (then Disconnected receives) or the test ends.
func Hang() Step { return Step{kind: stepHang} }

// Wait holds the stream until ch is closed, then carries on with the next
// step. If the client goes away first, Disconnected receives.
func Wait(ch <-chan struct{}) Step { return Step{kind: stepWait, wait: ch} }

// Signal closes ch when the server reaches this step, so a test can act
// at a known point of the reply. As the first step of a fake Ollama reply,
// followed by Hang, nothing has been sent yet: the model is "loading".
func Signal(ch chan<- struct{}) Step { return Step{kind: stepSignal, signal: ch} }

// Drop cuts the connection without ending the reply, as a server that
// crashed would.
func Drop() Step { return Step{kind: stepDrop} }

// EndWithoutDone ends the body cleanly without the final chunk (no
// done, no [DONE]), as a misbehaving proxy might.
func EndWithoutDone() Step { return Step{kind: stepEnd} }

// Pause sleeps between chunks, for demonstrations and UI pacing; tests
// should order events with Wait instead.
func Pause(d time.Duration) Step { return Step{kind: stepPause, pause: d} }

// Raw writes s to the body exactly as given (framing included), for wire
// cases the other steps cannot express.
func Raw(s string) Step { return Step{kind: stepRaw, msg: s} }

func splitWords(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			return append(out, s)
		}
		j := i + 1
		for j < len(s) && s[j] == ' ' {
			j++
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}
