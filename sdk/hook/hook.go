package hook

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Input is what ollm sends for an event (the ollm dialect).
type Input struct {
	ID       uint64         `json:"id,omitempty"`
	Event    string         `json:"event"`
	Data     map[string]any `json:"data"`
	Extra    map[string]any `json:"extra,omitempty"`
	Metadata Metadata       `json:"metadata"`
}

// Metadata is the input's metadata block.
type Metadata struct {
	Timestamp       string `json:"timestamp"`
	HookName        string `json:"hookName"`
	HookVersion     string `json:"hookVersion"`
	EventAlias      string `json:"eventAlias,omitempty"`
	Extension       string `json:"extension,omitempty"`
	SessionID       string `json:"sessionId"`
	Cwd             string `json:"cwd"`
	ProtocolVersion string `json:"protocolVersion"`
}

// Session is the data's session block {id, user, startTime}, when present.
func (in Input) Session() (id, user, startTime string) {
	s, _ := in.Data["session"].(map[string]any)
	id, _ = s["id"].(string)
	user, _ = s["user"].(string)
	startTime, _ = s["startTime"].(string)
	return id, user, startTime
}

// Output is a hook's answer; the zero value lets the operation go on.
type Output struct {
	Continue      *bool          `json:"continue,omitempty"`
	Reason        string         `json:"reason,omitempty"`
	SystemMessage string         `json:"systemMessage,omitempty"`
	Data          map[string]any `json:"data,omitempty"` // rewrites: args, result, prompt, messages, response, available_tools
}

// Allow lets the operation go on.
func Allow() Output { return Output{} }

// Block stops the operation with reason.
func Block(reason string) Output {
	f := false
	return Output{Continue: &f, Reason: reason}
}

// Message lets the operation go on and adds text to the conversation.
func Message(text string) Output { return Output{SystemMessage: text} }

// CommandResponse answers a slash command: one of the four actions, and an
// error line shown whatever the action.
type CommandResponse struct {
	Action  string `json:"action"`
	Prompt  string `json:"prompt,omitempty"`
	Insert  string `json:"insert,omitempty"`
	Display string `json:"display,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Prompt submits text as the user's next prompt.
func Prompt(text string) CommandResponse { return CommandResponse{Action: "prompt", Prompt: text} }

// Insert puts text into the editor without submitting it.
func Insert(text string) CommandResponse { return CommandResponse{Action: "insert", Insert: text} }

// Display shows text as a note; no model call, nothing in the transcript.
func Display(text string) CommandResponse { return CommandResponse{Action: "display", Display: text} }

// Noop changes nothing (the handler did its work, or notified).
func Noop() CommandResponse { return CommandResponse{Action: "noop"} }

// Error shows msg as an error line.
func Error(msg string) CommandResponse { return CommandResponse{Action: "noop", Error: msg} }

// Handler answers one event.
type Handler func(ctx context.Context, in Input) Output

// CommandHandler answers one invocation of a slash command; args is what
// the user typed after the name, trimmed.
type CommandHandler func(ctx context.Context, args string) CommandResponse

// Hook is a persistent hook: handlers by event, commands by name.
type Hook struct {
	events   map[string]Handler
	commands map[string]command
	order    []string

	wmu sync.Mutex
	w   io.Writer
	ctx context.Context
}

type command struct {
	desc string
	fn   CommandHandler
}

// New returns an empty hook; add handlers, then Run.
func New() *Hook {
	return &Hook{events: map[string]Handler{}, commands: map[string]command{}}
}

// On handles event (its canonical name, "before_tool"; "*" for any event
// without its own handler). An event without a handler is allowed.
func (h *Hook) On(event string, fn Handler) { h.events[event] = fn }

// Command registers /name; it is announced in the hello answer.
func (h *Hook) Command(name, description string, fn CommandHandler) {
	if _, ok := h.commands[name]; !ok {
		h.order = append(h.order, name)
	}
	h.commands[name] = command{desc: description, fn: fn}
}

// Notify pushes a notification (level info, success, warn or error). The
// user sees it labelled with the extension's name. It may be called at
// any time while Run runs, from any goroutine.
func (h *Hook) Notify(level, message string) error {
	return h.send(map[string]any{"type": "notify", "level": level, "message": message})
}

// Emit raises the custom event eventName with data; hooks declared for
// "custom" see {eventName, data, source} with source set by ollm.
func (h *Hook) Emit(eventName string, data any) error {
	return h.send(map[string]any{"type": "emit", "eventName": eventName, "data": data})
}

// Context is the context of Run; it ends when ollm says shutdown.
func (h *Hook) Context() context.Context { return h.ctx }

var errNotRunning = errors.New("hook: Run has not started")

func (h *Hook) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h.wmu.Lock()
	defer h.wmu.Unlock()
	if h.w == nil {
		return errNotRunning
	}
	_, err = h.w.Write(append(b, '\n'))
	return err
}

// Run speaks the persistent protocol on r and w until ollm sends shutdown
// or closes r: it answers hello with the commands, each event with its
// handler's output and each command_invoked with its handler's response.
// Requests are handled concurrently; answers carry their ids.
func (h *Hook) Run(r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.wmu.Lock()
	h.w, h.ctx = w, ctx
	h.wmu.Unlock()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var wg sync.WaitGroup
	defer wg.Wait()
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var head struct {
			Type string `json:"type"`
			ID   uint64 `json:"id"`
			Name string `json:"name"`
			Args string `json:"args"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			return fmt.Errorf("hook: a line from ollm is not JSON: %w", err)
		}
		switch head.Type {
		case "hello":
			if err := h.hello(); err != nil {
				return err
			}
		case "shutdown":
			return nil
		case "command_invoked":
			wg.Add(1)
			go func() { defer wg.Done(); h.invoke(ctx, head.ID, head.Name, head.Args) }()
		default:
			var in Input
			if err := json.Unmarshal(line, &in); err != nil {
				return fmt.Errorf("hook: an event from ollm does not decode: %w", err)
			}
			wg.Add(1)
			go func() { defer wg.Done(); h.answer(ctx, in) }()
		}
	}
	return sc.Err()
}

func (h *Hook) hello() error {
	cmds := make([]map[string]string, 0, len(h.order))
	for _, n := range h.order {
		cmds = append(cmds, map[string]string{"name": n, "description": h.commands[n].desc})
	}
	return h.send(map[string]any{"type": "hello", "commands": cmds})
}

func (h *Hook) invoke(ctx context.Context, id uint64, name, args string) {
	c, ok := h.commands[name]
	r := Error("no handler for /" + name)
	if ok {
		r = c.fn(ctx, args)
	}
	_ = h.send(struct {
		Type string `json:"type"`
		ID   uint64 `json:"id"`
		CommandResponse
	}{"command_response", id, r})
}

func (h *Hook) answer(ctx context.Context, in Input) {
	fn := h.events[in.Event]
	if fn == nil {
		fn = h.events["*"]
	}
	out := Allow()
	if fn != nil {
		out = fn(ctx, in)
	}
	_ = h.send(struct {
		ID uint64 `json:"id"`
		Output
	}{in.ID, out})
}

// Once answers a single event as a one-shot hook: it reads the input from
// r and writes fn's output to w.
func Once(r io.Reader, w io.Writer, fn Handler) error {
	var in Input
	if err := json.NewDecoder(r).Decode(&in); err != nil {
		return fmt.Errorf("hook: the input is not an ollm hook input: %w", err)
	}
	return json.NewEncoder(w).Encode(fn(context.Background(), in))
}
