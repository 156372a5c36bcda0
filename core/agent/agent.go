package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// DefaultMaxTurns bounds the model requests of one prompt when neither the
// profile nor the caller says otherwise.
const DefaultMaxTurns = 50

// DefaultCompactAt is the share of the context window at which the
// conversation is compacted before the next request.
const DefaultCompactAt = 0.8

// Emitter runs the hooks of an event; *hooks.Engine implements it.
type Emitter interface {
	Emit(ctx context.Context, ev hooks.Event, data map[string]any) (hooks.Outcome, error)
}

// Tools is where the loop finds the tools the model may call;
// *tool.Registry implements it.
type Tools interface {
	List() []tool.Tool
	Get(name string) (tool.Tool, bool)
}

// Config is what a Session is built from.
type Config struct {
	Provider llm.Provider // required
	Model    string       // the model name sent and shown to hooks; "" means the provider's
	Tools    Tools        // nil: no tools
	Hooks    Emitter      // nil: no hooks
	Policy   *policy.Policy
	// Bus carries confirmations to whoever answers them (the TUI). nil
	// means a bus nobody answers: every ask becomes a deny naming the rule.
	Bus        *bus.Bus
	Transcript *Transcript // nil: nothing is saved
	SessionID  string
	Cwd        string
	System     string        // system prompt, first message of a new session
	History    []llm.Message // a resumed conversation
	MaxTurns   int           // model requests per prompt; 0 means DefaultMaxTurns
	// ContextWindow in tokens; 0 asks the provider's ModelInfo.
	ContextWindow int
	CompactAt     float64 // share of the window; 0 means DefaultCompactAt
	// Compact replaces the conversation by a shorter one; nil asks the
	// model for a summary of everything before the latest prompt.
	Compact  func(ctx context.Context, msgs []llm.Message) ([]llm.Message, error)
	Options  map[string]any // model options for every request
	OnEvent  func(Event)    // called one event at a time; must not block for long
	Now      func() time.Time
	ReadOnly func(tool.Tool) bool // nil: Kind().ReadOnly()
	// OnAlwaysAllow receives the allow rules an "always" answer added for
	// this session, so the caller can save them (profiles.AddPolicyRules).
	OnAlwaysAllow func([]schema.PolicyRule)
	// ToolContext adds to the results of the model's tool calls (the
	// context files of subdirectories); nil: nothing.
	ToolContext ToolContext
	// Subagents are the agents the model may delegate to (the Task
	// tool); nil or none: no Task tool.
	Subagents *Subagents
	depth     int // how deep this session is a subagent (0: the user's)
}

// BlockedError is an operation a hook or the policy stopped at the top level.
type BlockedError struct{ Block Block }

func (e *BlockedError) Error() string {
	by := ""
	if e.Block.By != "" {
		by = " by " + e.Block.By
	}
	if e.Block.Reason == "" {
		return fmt.Sprintf("%s blocked%s", e.Block.Event, by)
	}
	return fmt.Sprintf("%s blocked%s: %s", e.Block.Event, by, e.Block.Reason)
}

// TurnLimitError says the prompt used up its model requests.
type TurnLimitError struct{ Max int }

func (e *TurnLimitError) Error() string {
	return fmt.Sprintf("stopped after %d model requests (agent.maxTurns); raise it or ask for less at once", e.Max)
}

// ErrCancelled is returned when the context ended during a prompt; the
// session stays usable.
var ErrCancelled = errors.New("turn cancelled")

// Reply is the outcome of one prompt.
type Reply struct {
	Text      string       `json:"text"`     // the last answer as displayed (after after_model)
	Original  string       `json:"original"` // the last answer as the model wrote it
	Turns     int          `json:"turns"`    // model requests made
	ToolCalls []CallRecord `json:"toolCalls,omitempty"`
	Usage     llm.Usage    `json:"usage"` // summed over the requests
}

// CallRecord is one tool call of a prompt.
type CallRecord struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Result string          `json:"result"`
	Error  string          `json:"error,omitempty"`
}

// Session is one conversation. Run may be called again after it returns,
// also after an error or a cancellation; calls must not overlap.
type Session struct {
	cfg    Config
	mu     sync.Mutex // guards msgs, pol, used
	msgs   []llm.Message
	pol    *policy.Policy
	used   int
	window int
	// windowAsked is set once ModelInfo was asked for the current model.
	windowAsked bool
	// pendingSys holds system messages that arrived between an assistant
	// message with tool calls and its results.
	pendingSys []llm.Message
	retrying   bool                // a turn is being retried after a context overflow
	always     []schema.PolicyRule // "always" answers of this session
	alwaysPol  *policy.Policy
	emitMu     sync.Mutex
	started    bool
	ended      bool
	startTime  time.Time // for the session block of hook data
	user       string
	// told holds the notices of hooks that run on every model request,
	// so each is said once per session.
	told map[string]bool
	// turn narrows the prompt a command or skill runs (turnlimits.go).
	limits *turnLimits
	// baseTools are Config.Tools without the Task tool, what a subagent's
	// subset is taken from.
	baseTools Tools
}

// New builds a session. It talks to nothing until Start.
func New(cfg Config) (*Session, error) {
	if cfg.Provider == nil {
		return nil, errors.New("agent: no provider")
	}
	if cfg.Policy == nil {
		return nil, errors.New("agent: no policy")
	}
	if cfg.Bus == nil {
		cfg.Bus = bus.New(bus.Options{})
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	if cfg.CompactAt <= 0 || cfg.CompactAt > 1 {
		cfg.CompactAt = DefaultCompactAt
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ReadOnly == nil {
		cfg.ReadOnly = func(t tool.Tool) bool { return t.Kind().ReadOnly() }
	}
	s := &Session{cfg: cfg, pol: cfg.Policy, window: cfg.ContextWindow, startTime: cfg.Now(), user: userName(), baseTools: cfg.Tools}
	if s.delegates() && (s.cfg.depth == 0 || subsetAllows(cfg.Tools, TaskTool)) {
		s.cfg.Tools = withTask{base: cfg.Tools, task: taskTool(s)}
	}
	if len(cfg.History) > 0 {
		s.msgs = append([]llm.Message(nil), cfg.History...)
	} else if cfg.System != "" {
		s.msgs = []llm.Message{{Role: llm.RoleSystem, Content: cfg.System}}
		if err := s.save(s.msgs...); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// ID is the session id.
func (s *Session) ID() string { return s.cfg.SessionID }

// Messages returns a copy of the conversation.
func (s *Session) Messages() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Message(nil), s.msgs...)
}

// Context returns the tracked context use.
func (s *Session) Context() ContextUse {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ContextUse{Used: s.used, Window: s.window}
}

// Policy returns the policy in force (with this session's "always" answers).
func (s *Session) Policy() *policy.Policy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pol
}

// SetPolicy replaces the policy (a mode switch in the TUI).
func (s *Session) SetPolicy(p *policy.Policy) {
	s.mu.Lock()
	s.pol = p
	s.mu.Unlock()
}

// Model returns the model requests go to.
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Model
}

// SetModel switches the model for the rest of the session (/model, or a
// reloaded profile). p nil keeps the provider. window is the new model's
// context window; 0 asks the provider's ModelInfo before the next request.
// It must not be called while a prompt runs.
func (s *Session) SetModel(p llm.Provider, model string, window int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p != nil {
		s.cfg.Provider = p
	}
	s.cfg.Model, s.window, s.windowAsked = model, window, false
}

// Reset starts the conversation over (/clear): the history goes, the
// system prompt (Config.System) stays and the tracked context use is zero.
// The transcript records the reset, so resuming starts from it too; this
// session's "always" answers stay. It must not be called while a prompt
// runs.
func (s *Session) Reset() error {
	var msgs []llm.Message
	if s.cfg.System != "" {
		msgs = []llm.Message{{Role: llm.RoleSystem, Content: s.cfg.System}}
	}
	s.mu.Lock()
	s.msgs, s.used, s.pendingSys = msgs, 0, nil
	cu := ContextUse{Window: s.window}
	s.mu.Unlock()
	s.forgetToolContext()
	if s.cfg.Transcript != nil {
		if err := s.cfg.Transcript.Replace(msgs); err != nil {
			return fmt.Errorf("recording the reset in %s: %w", s.cfg.Transcript.Path(), err)
		}
	}
	s.publish(Event{Type: EvReset, Context: &cu})
	return nil
}

// ensureWindow asks the provider for the model's context window once per
// model when none is configured.
func (s *Session) ensureWindow(ctx context.Context) {
	s.mu.Lock()
	ask := s.window == 0 && !s.windowAsked
	s.windowAsked = true
	p, model := s.cfg.Provider, s.cfg.Model
	s.mu.Unlock()
	if !ask {
		return
	}
	if info, err := p.ModelInfo(ctx, model); err == nil {
		s.mu.Lock()
		if s.cfg.Model == model {
			s.window = info.ContextWindow
		}
		s.mu.Unlock()
	}
}

// Start emits session_start. A blocking hook refuses the session: the
// error is a *BlockedError and the session must not be used.
func (s *Session) Start(ctx context.Context) error {
	if s.started {
		return nil
	}
	s.started = true
	s.ensureWindow(ctx)
	path := ""
	if s.cfg.Transcript != nil {
		path = s.cfg.Transcript.Path()
	}
	s.publish(Event{Type: EvSessionStart, Text: path, Context: &ContextUse{Window: s.Context().Window}})
	out, blocked := s.hook(ctx, hooks.SessionStart, func() map[string]any {
		source := "startup"
		if len(s.cfg.History) > 0 {
			source = "resume"
		}
		return map[string]any{"source": source, "model": s.cfg.Model, "config": s.configData()}
	})
	if blocked != nil {
		return blocked
	}
	s.addSystem(out, hooks.SessionStart)
	return nil
}

// Close emits session_end; a block cannot keep the session open, so its
// reason is only reported.
func (s *Session) Close(ctx context.Context) error {
	if s.ended {
		return nil
	}
	s.ended = true
	s.hook(ctx, hooks.SessionEnd, func() map[string]any {
		return map[string]any{"messages": wireMessages(s.Messages()), "reason": "other", "session": s.endData()}
	})
	s.publish(Event{Type: EvSessionEnd})
	if s.cfg.Transcript != nil {
		return s.cfg.Transcript.Close()
	}
	return nil
}

// Run answers one user prompt: before_agent, then model requests and tool
// calls until the model stops calling tools or the turn limit, then
// after_agent. Cancelling ctx cancels this prompt only.
func (s *Session) Run(ctx context.Context, prompt string) (Reply, error) {
	return s.run(ctx, prompt, nil)
}

func (s *Session) run(ctx context.Context, prompt string, images [][]byte) (Reply, error) {
	defer s.endLoaded()
	if !s.started {
		if err := s.Start(ctx); err != nil {
			return Reply{}, err
		}
	}
	var rep Reply
	out, blocked := s.hook(ctx, hooks.BeforeAgent, func() map[string]any {
		return map[string]any{"prompt": prompt, "config": s.configData(), "context": map[string]any{
			"cwd": s.cfg.Cwd, "model": s.cfg.Model, "messages": len(s.Messages()),
		}}
	})
	if blocked != nil {
		return rep, blocked
	}
	if p, ok := out.Data["prompt"].(string); ok {
		prompt = p
	}
	user := llm.Message{Role: llm.RoleUser, Content: prompt, Images: images}
	if err := s.append(user); err != nil {
		return rep, err
	}
	s.publish(Event{Type: EvPrompt, Text: prompt})
	s.addSystem(out, hooks.BeforeAgent)

	began := time.Now()
	stopActive := false
	for {
		if err := s.turns(ctx, &rep); err != nil {
			return rep, err
		}
		out, blocked = s.hook(ctx, hooks.AfterAgent, func() map[string]any {
			return map[string]any{"stop_hook_active": stopActive, "response": rep.Text, "tool_calls": rep.ToolCalls, "prompt": prompt,
				"metrics": map[string]any{"duration": time.Since(began).Seconds(), "tokens": rep.Usage.PromptTokens + rep.Usage.CompletionTokens}}
		})
		retry, _ := out.Data["retry"].(string)
		if err := s.maybeClear(out, blocked != nil || retry != ""); err != nil {
			return rep, err
		}
		if blocked != nil {
			return rep, blocked
		}
		s.addSystem(out, hooks.AfterAgent)
		if retry == "" {
			break
		}
		if err := s.goOn(retry); err != nil {
			return rep, err
		}
		stopActive = true
	}
	s.publish(Event{Type: EvTurnEnd, Text: rep.Text, Usage: &rep.Usage})
	return rep, nil
}

// turns makes model requests and runs the tool calls they ask for until
// the model stops calling tools, the turn limit, or an error.
func (s *Session) turns(ctx context.Context, rep *Reply) error {
	var err error
	for {
		if rep.Turns >= s.cfg.MaxTurns {
			err = &TurnLimitError{Max: s.cfg.MaxTurns}
			s.failed(ctx, "agent", err)
			break
		}
		rep.Turns++
		var calls []llm.ToolCall
		calls, err = s.turn(ctx, rep.Turns, rep)
		if err != nil || len(calls) == 0 {
			break
		}
		if err = s.runCalls(ctx, rep.Turns, calls, rep); err != nil {
			break
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %v", ErrCancelled, context.Cause(ctx))
			s.publish(Event{Type: EvError, Error: err.Error()})
		}
		return err
	}
	return nil
}

// turn makes one model request and returns the tool calls it asked for.
func (s *Session) turn(ctx context.Context, n int, rep *Reply) ([]llm.ToolCall, error) {
	s.ensureWindow(ctx)
	if err := s.maybeCompact(ctx); err != nil {
		return nil, err
	}
	req, blocked := s.prepare(ctx)
	if blocked != nil {
		return nil, blocked
	}
	s.publish(Event{Type: EvModelStart, Turn: n})
	if req.answered {
		return s.answered(n, req, rep)
	}
	resp, err := s.cfg.Provider.Chat(ctx, llm.Request{Model: req.model, Messages: req.msgs, Tools: req.defs, Options: req.options, ToolChoice: req.toolChoice},
		func(e llm.Event) {
			switch e.Kind {
			case llm.EventContent:
				s.publish(Event{Type: EvContent, Turn: n, Text: e.Text})
			case llm.EventThinking:
				s.publish(Event{Type: EvThinking, Turn: n, Text: e.Text})
			}
		})
	if err != nil && llm.IsKind(err, llm.ErrContextOverflow) && ctx.Err() == nil && !s.retrying {
		// The server says the conversation does not fit although the
		// tracked use did not reach the threshold: treat it as full,
		// compact and try once more.
		s.mu.Lock()
		s.used, s.retrying = s.window, true
		if s.window == 0 {
			s.used, s.window = 1, 1
		}
		s.mu.Unlock()
		defer func() { s.retrying = false }()
		return s.turn(ctx, n, rep)
	}
	if err != nil {
		if ctx.Err() == nil {
			s.failed(ctx, "model", err)
		}
		return nil, err
	}
	addUsage(&rep.Usage, resp.Usage)
	s.mu.Lock()
	s.used = resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	cu := ContextUse{Used: s.used, Window: s.window}
	s.mu.Unlock()
	s.publish(Event{Type: EvContext, Turn: n, Context: &cu, Usage: &resp.Usage})

	msg, display, out, blocked := s.afterModel(ctx, req, resp)
	if blocked != nil {
		return nil, blocked
	}
	if err := s.append(msg); err != nil {
		return nil, err
	}
	s.addSystemAfter(out, hooks.AfterModel, len(msg.ToolCalls) > 0)
	rep.Text, rep.Original = display, resp.Message.Content
	s.publish(Event{Type: EvAssistant, Turn: n, Text: display, Message: &msg, Usage: &resp.Usage})
	return msg.ToolCalls, nil
}

func addUsage(sum *llm.Usage, u llm.Usage) {
	sum.PromptTokens += u.PromptTokens
	sum.CompletionTokens += u.CompletionTokens
	sum.TotalDuration += u.TotalDuration
	sum.LoadDuration += u.LoadDuration
	sum.PromptEvalDuration += u.PromptEvalDuration
	sum.EvalDuration += u.EvalDuration
}

func (s *Session) toolDefs() []tool.Definition {
	if s.cfg.Tools == nil {
		return nil
	}
	list := s.cfg.Tools.List()
	defs := make([]tool.Definition, len(list))
	for i, t := range list {
		defs[i] = tool.DefinitionOf(t)
	}
	return defs
}

// filterTools keeps the definitions a before_tool_selection rewrite kept:
// a list of names, or of objects with a name. Names not offered are ignored,
// so a hook can narrow the set but never widen it.
func filterTools(defs []tool.Definition, v any) []tool.Definition {
	list, ok := v.([]any)
	if !ok {
		return defs
	}
	keep := map[string]bool{}
	for _, x := range list {
		switch x := x.(type) {
		case string:
			keep[x] = true
		case map[string]any:
			if n, ok := x["name"].(string); ok {
				keep[n] = true
			}
		}
	}
	out := defs[:0:0]
	for _, d := range defs {
		if keep[d.Name] {
			out = append(out, d)
		}
	}
	return out
}

// wireMessages is the conversation as hooks see it.
func wireMessages(msgs []llm.Message) []map[string]any {
	out := make([]map[string]any, len(msgs))
	for i, m := range msgs {
		w := map[string]any{"role": string(m.Role), "content": m.Content}
		if len(m.ToolCalls) > 0 {
			calls := make([]map[string]any, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				calls[j] = map[string]any{"id": c.ID, "name": c.Name, "arguments": c.Arguments}
			}
			w["tool_calls"] = calls
		}
		if m.ToolName != "" {
			w["tool_name"], w["tool_call_id"] = m.ToolName, m.ToolCallID
		}
		out[i] = w
	}
	return out
}

// rewrittenMessages decodes a before_model rewrite. Data the loop put in
// itself (not rewritten) has the Go type and is ignored.
func rewrittenMessages(v any) ([]llm.Message, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	raw, err := json.Marshal(list)
	if err != nil {
		return nil, false
	}
	var wire []struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolCalls []struct {
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"tool_calls"`
		ToolName   string `json:"tool_name"`
		ToolCallID string `json:"tool_call_id"`
	}
	if json.Unmarshal(raw, &wire) != nil {
		return nil, false
	}
	out := make([]llm.Message, len(wire))
	for i, w := range wire {
		m := llm.Message{Role: llm.Role(w.Role), Content: w.Content, ToolName: w.ToolName, ToolCallID: w.ToolCallID}
		for _, c := range w.ToolCalls {
			args := c.Arguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: args})
		}
		out[i] = m
	}
	return out, true
}

// has reports whether any hook is registered for ev, so data that is
// costly to build (the whole conversation) is built only when needed.
func (s *Session) has(ev hooks.Event) bool {
	if s.cfg.Hooks == nil || (s.cfg.depth > 0 && lifecycleEvent(ev)) {
		return false
	}
	if r, ok := s.cfg.Hooks.(interface{ Registry() *hooks.Registry }); ok {
		return len(r.Registry().ForEvent(ev)) > 0
	}
	return true
}

// hook emits ev with the data data builds (called only when hooks run) and
// returns the outcome and, when a hook blocked, the error to return.
func (s *Session) hook(ctx context.Context, ev hooks.Event, data func() map[string]any) (hooks.Outcome, *BlockedError) {
	if !s.has(ev) || ctx.Err() != nil {
		return hooks.Outcome{Event: ev}, nil
	}
	d := data()
	d["session_id"] = s.cfg.SessionID
	if _, ok := d["session"]; !ok {
		d["session"] = s.sessionData()
	}
	out, err := s.cfg.Hooks.Emit(hooks.WithSessionInfo(ctx, s.hookSessionInfo()), ev, d)
	if err != nil {
		return hooks.Outcome{Event: ev}, nil // only when ctx ended; the caller sees ctx
	}
	for _, n := range out.Notices {
		if !s.toldBefore(ev, n) {
			s.publish(Event{Type: EvNotice, Hook: string(ev), Text: n})
		}
	}
	for _, r := range out.Results {
		if r.Failure != "" {
			f := HookFailure{Hook: r.Hook, Event: string(ev), Kind: r.Failure, ExitCode: r.ExitCode,
				DurationMS: r.Duration.Milliseconds(), Detail: r.Error, FailClosed: r.FailClosed}
			s.publish(Event{Type: EvHookFailure, Hook: string(ev), Failure: &f, Text: f.String()})
		}
	}
	if !out.Blocked {
		return out, nil
	}
	b := Block{Event: string(ev), By: out.BlockedBy, Reason: out.Reason}
	s.publish(Event{Type: EvBlocked, Hook: string(ev), Block: &b})
	return out, &BlockedError{Block: b}
}

// addSystem puts a hook's system messages into the context at once and
// reports whether there were any.
func (s *Session) addSystem(out hooks.Outcome, ev hooks.Event) bool {
	return s.addSystemAfter(out, ev, false)
}

// addSystemAfter adds the system messages, or, when defer_ is set (tool
// results must follow their assistant message), queues them until the
// results are in.
func (s *Session) addSystemAfter(out hooks.Outcome, ev hooks.Event, defer_ bool) bool {
	if len(out.SystemMessages) == 0 {
		return false
	}
	msg := llm.Message{Role: llm.RoleSystem, Content: out.SystemMessage()}
	if defer_ {
		s.mu.Lock()
		s.pendingSys = append(s.pendingSys, msg)
		s.mu.Unlock()
	} else if s.append(msg) != nil {
		return false
	}
	s.publish(Event{Type: EvSystemMessage, Hook: string(ev), Text: msg.Content})
	return true
}

// failed emits on_error and publishes the error.
func (s *Session) failed(ctx context.Context, op string, err error) {
	s.publish(Event{Type: EvError, Error: err.Error(), Text: op})
	s.hook(context.WithoutCancel(ctx), hooks.OnError, func() map[string]any {
		return map[string]any{"error": errorData(err), "operation": op}
	})
}

// append adds messages to the conversation and the transcript.
func (s *Session) append(msgs ...llm.Message) error {
	s.mu.Lock()
	s.msgs = append(s.msgs, msgs...)
	s.mu.Unlock()
	return s.save(msgs...)
}

func (s *Session) save(msgs ...llm.Message) error {
	if s.cfg.Transcript == nil {
		return nil
	}
	return s.cfg.Transcript.Append(msgs...)
}

func (s *Session) publish(e Event) {
	if s.cfg.OnEvent == nil {
		return
	}
	e.Time = s.cfg.Now()
	e.SessionID = s.cfg.SessionID
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.cfg.OnEvent(e)
}

// flushSystem appends system messages queued while tool results were due.
func (s *Session) flushSystem() error {
	s.mu.Lock()
	p := s.pendingSys
	s.pendingSys = nil
	s.mu.Unlock()
	if len(p) == 0 {
		return nil
	}
	return s.append(p...)
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
