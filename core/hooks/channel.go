package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/ollm/ollm/internal/lazyre"
)

// A persistent hook may speak first: besides answering events it can
// register slash commands, answer their invocations, push notifications
// and raise custom events (seed 002's register_command, command_invoked,
// command_response and notify frames; seed 003's custom event). Frames
// without an id are these; an answer to a request carries its id.

// Notification is a message a hook pushed to the user. Source is who
// sent it, decided by ollm (the extension's name, else the hook's), never
// by the message; the user sees it labelled with Source so an extension
// cannot pass its words off as ollm's or another extension's.
type Notification struct {
	Source  string    `json:"source"`
	Level   string    `json:"level"` // info, success, warn, error
	Message string    `json:"message"`
	Time    time.Time `json:"time"`
}

// Label is how the user sees a notification: "[source] level: message".
func (n Notification) Label() string {
	return fmt.Sprintf("[%s] %s: %s", n.Source, n.Level, n.Message)
}

// Command is a slash command a persistent hook registered.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"` // the extension (or profile hook) that owns it
	proc        *persistentProc
}

// CommandResponse answers a command invocation (seed 002): prompt submits
// Prompt as a user message, insert puts Insert in the editor, display
// shows Display as a note (no model call), noop does nothing; Error, when
// set, is shown as an error line whatever the action.
type CommandResponse struct {
	Action  string `json:"action"`
	Prompt  string `json:"prompt,omitempty"`
	Insert  string `json:"insert,omitempty"`
	Display string `json:"display,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Command actions.
const (
	ActionPrompt  = "prompt"
	ActionInsert  = "insert"
	ActionDisplay = "display"
	ActionNoop    = "noop"
)

// Notification levels.
var levels = map[string]string{"info": "info", "success": "success", "warn": "warn", "warning": "warn", "error": "error"}

var commandName = lazyre.New(`^[a-z0-9][a-z0-9_.:-]{0,63}$`)

// maxNoteLen caps a notification or command description.
const maxNoteLen = 500

// source is who h speaks for: its extension, else its name. A name that
// would read as ollm's own label ("ollm", "mcp:...") is shown as
// "ext:<name>".
func source(h *Hook) string {
	s := h.Extension
	if s == "" {
		s = h.Name
	}
	if l := strings.ToLower(s); l == "ollm" || strings.HasPrefix(l, "mcp:") {
		return "ext:" + s
	}
	return s
}

// frame handles one line a persistent hook sent on its own.
func (p *persistentProc) frame(typ string, line []byte) {
	var f struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Level       string          `json:"level"`
		Message     string          `json:"message"`
		EventName   string          `json:"eventName"`
		Data        any             `json:"data"`
		Schema      json.RawMessage `json:"schema"`     // register_tool (seed 002)
		Parameters  json.RawMessage `json:"parameters"` // register_tool, the name providers use
		Commands    []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"commands"`
	}
	if err := json.Unmarshal(line, &f); err != nil {
		p.e.opts.Logger.Warn("persistent hook sent a line that is not JSON", "hook", p.h.QualifiedName(), "error", err)
		return
	}
	switch typ {
	case "hello":
		for _, c := range f.Commands {
			p.e.registerCommand(p, c.Name, c.Description)
		}
	case "register_command":
		p.e.registerCommand(p, f.Name, f.Description)
	case "notify":
		p.e.notify(p.h, f.Level, f.Message)
	case "emit", "custom":
		p.e.raiseCustom(p.h, f.EventName, f.Data)
	case "ready": // seed 002's end of registrations: nothing waits for it here
	case "shutdown_ack": // seed 002's answer to shutdown: the process exits anyway
	case "register_tool":
		schema := f.Schema
		if len(schema) == 0 {
			schema = f.Parameters
		}
		p.e.registerTool(p, f.Name, f.Description, schema)
	default:
		p.e.opts.Logger.Warn("persistent hook sent an unknown frame", "hook", p.h.QualifiedName(), "type", typ)
	}
}

// registerCommand records /name for p. The first owner keeps a name: a
// name ollm reserves (Options.ReservedCommand) or another extension
// registered is refused, and the user is told, so no extension can take
// over another's command or a built-in one.
func (e *Engine) registerCommand(p *persistentProc, name, desc string) {
	src := source(p.h)
	name = strings.TrimPrefix(name, "/")
	if !commandName.MatchString(name) {
		e.ownNotice(fmt.Sprintf("%s tried to register the command %q; a command name is lower case letters, digits and _.:- (at most 64); fix the extension", src, name))
		return
	}
	if e.opts.ReservedCommand != nil && e.opts.ReservedCommand(name) {
		e.ownNotice(fmt.Sprintf("%s tried to register /%s, a command of ollm's own; ignored (rename it in the extension)", src, name))
		return
	}
	e.mu.Lock()
	old, taken := e.commands[name]
	if taken && old.Source != src {
		e.mu.Unlock()
		e.ownNotice(fmt.Sprintf("%s tried to register /%s, which %s owns; ignored (disable one of them or rename the command)", src, name, old.Source))
		return
	}
	e.commands[name] = &Command{Name: name, Description: clean(desc), Source: src, proc: p}
	e.mu.Unlock()
	e.opts.Logger.Info("command registered", "command", name, "hook", p.h.QualifiedName())
}

// Commands lists the registered commands by name.
func (e *Engine) Commands() []Command {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Command, 0, len(e.commands))
	for _, c := range e.commands {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// InvokeCommand sends command_invoked for /name with args (everything
// after the name, trimmed) and returns the validated response. The error
// names the extension and what to fix.
func (e *Engine) InvokeCommand(ctx context.Context, name, args string) (CommandResponse, error) {
	e.mu.Lock()
	c := e.commands[strings.TrimPrefix(name, "/")]
	e.mu.Unlock()
	if c == nil {
		return CommandResponse{}, fmt.Errorf("no extension registered /%s", name)
	}
	out := c.proc.request(ctx, func(id uint64) ([]byte, error) {
		return json.Marshal(map[string]any{"type": "command_invoked", "id": id, "name": c.Name, "args": strings.TrimSpace(args)})
	})
	switch {
	case out.TimedOut:
		return CommandResponse{}, fmt.Errorf("/%s: %s did not answer within %s (its log: logs/%s)", c.Name, c.Source,
			c.proc.h.timeout(e.opts.Timeout), logName(c.proc.h.Extension))
	case out.StartErr != nil:
		return CommandResponse{}, fmt.Errorf("/%s: %s: %w", c.Name, c.Source, out.StartErr)
	case out.Err != nil:
		return CommandResponse{}, fmt.Errorf("/%s: %s: %w", c.Name, c.Source, out.Err)
	}
	var r CommandResponse
	if err := json.Unmarshal(out.Stdout, &r); err != nil {
		return CommandResponse{}, fmt.Errorf("/%s: %s answered with a line that is not a command_response: %v", c.Name, c.Source, err)
	}
	switch r.Action {
	case ActionPrompt, ActionInsert, ActionDisplay, ActionNoop:
	case "":
		if r.Error == "" {
			return r, fmt.Errorf("/%s: %s answered without an action; send one of prompt, insert, display, noop", c.Name, c.Source)
		}
		r.Action = ActionNoop
	default:
		return r, fmt.Errorf("/%s: %s answered the unknown action %q; send one of prompt, insert, display, noop", c.Name, c.Source, r.Action)
	}
	h := c.proc.h
	r.Error, r.Display = clean(e.redact(h, r.Error)), cleanBlock(e.redact(h, r.Display))
	r.Prompt, r.Insert = e.redact(h, r.Prompt), e.redact(h, r.Insert)
	return r, nil
}

func logName(ext string) string {
	if ext == "" {
		return "hooks.log"
	}
	return "ext-" + ext + ".log"
}

// NewNotification is a notification from source, its level one of info,
// success, warn, error (warning counts as warn; anything else as info,
// except MCP's error, critical, alert and emergency, which are error) and
// its message on one line without control characters.
func NewNotification(source, level, msg string, now time.Time) Notification {
	lv, ok := levels[level]
	switch {
	case ok:
	case level == "critical" || level == "alert" || level == "emergency":
		lv = "error"
	default:
		lv = "info"
	}
	return Notification{Source: source, Level: lv, Message: clean(msg), Time: now}
}

// notify passes a hook's notification on, labelled with its source.
func (e *Engine) notify(h *Hook, level, msg string) {
	n := NewNotification(source(h), level, e.redact(h, msg), e.opts.Now())
	if n.Message == "" || e.opts.OnNotify == nil {
		return
	}
	e.opts.OnNotify(n)
}

// ownNotice is ollm's own word about a hook (a refused registration).
func (e *Engine) ownNotice(msg string) {
	e.opts.Logger.Warn(msg)
	if e.opts.OnNotify != nil {
		e.opts.OnNotify(Notification{Source: "ollm", Level: "warn", Message: msg, Time: e.opts.Now()})
	}
}

// raiseCustom emits the custom event an extension raised, in the
// background. source is set by ollm. Its hooks observe: a block stops
// nothing, and their system messages reach the user as notifications
// labelled with the answering hook, not the conversation (an extension
// must not add to the model's context behind the user's back).
func (e *Engine) raiseCustom(h *Hook, name string, data any) {
	if name == "" {
		e.ownNotice(fmt.Sprintf("%s raised a custom event without an eventName; ignored", source(h)))
		return
	}
	d := map[string]any{"eventName": name, "data": data, "source": source(h)}
	if e.opts.Session.ID != "" {
		d["session"] = e.opts.Session.block()
	}
	e.async.Add(1)
	go func() {
		defer e.async.Done()
		out, _ := e.Emit(e.ctx, Custom, d)
		for _, r := range out.Results {
			if r.Message != "" {
				e.notify(&Hook{Name: r.Hook}, "info", r.Message)
			}
			if r.Failure != "" && e.opts.OnAsync != nil {
				e.opts.OnAsync(r)
			}
		}
	}()
}

// block is the session block of event data: {id, user, startTime}.
func (s Session) block() map[string]any {
	b := map[string]any{"id": s.ID, "user": s.User, "startTime": ""}
	if !s.Started.IsZero() {
		b["startTime"] = s.Started.UTC().Format(time.RFC3339Nano)
	}
	return b
}

// clean makes text safe to show on one line: control characters (escape
// sequences that could redraw the screen) become spaces, the length is
// capped.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) > maxNoteLen {
		s = s[:maxNoteLen] + "…"
	}
	return s
}

// cleanBlock is clean for a multi-line display note: newlines stay.
func cleanBlock(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) && r != '\t' {
				return ' '
			}
			return r
		}, l)
	}
	return strings.Join(lines, "\n")
}
