package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
)

// AgentOptions wire an AgentRuntime to the rest of a session.
type AgentOptions struct {
	// Bus is the session's confirmation bus; the runtime subscribes to it
	// as the answerer.
	Bus *bus.Bus
	// Status gives the status line's model, profile and generation.
	Status func() Status
	// Command answers /tools /mcp /ext /skills and /model without a name
	// (commands that only read); nil answers that the command is not
	// available.
	Command func(ctx context.Context, c Command) (string, error)
	// Job runs /reload, /model NAME and /clear on the session as work that
	// no prompt overlaps; its text is shown when it ends. nil: those
	// commands are not available.
	Job func(ctx context.Context, s *agent.Session, c Command) (string, error)
	// Skills renders /<skill>; nil: no skills.
	Skills *skills.Registry
	// Attach, if set, expands a prompt before it runs (MCP resources
	// mentioned as @server:uri); its notes are shown as notices.
	Attach func(ctx context.Context, prompt string) (string, []string)
	// ExtCommands are the slash commands extensions registered; nil: none.
	ExtCommands ExtCommands
	// Approvals are asked before the first prompt; Approve records each answer.
	Approvals []Approval
	Approve   func(id string, ok bool) error
}

// AgentRuntime adapts a core/agent Session and its bus to Runtime. Create
// it first, pass OnEvent as agent.Config.OnEvent (and MCPEvent as
// mcp.Options.OnEvent), then Attach the session.
type AgentRuntime struct {
	ctx  context.Context
	opt  AgentOptions
	out  chan Event
	s    *agent.Session
	stop context.CancelFunc

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []Event
	closed  bool
	cancel  context.CancelFunc  // of the running turn
	asking  map[string][]string // tool name -> call ids waiting for a bus request
	mcp     map[string]MCPServer
	context ContextUse
	waiting map[string]chan bool // AskHook calls waiting for Approve
	errs    []string             // the errors shown during the running turn
}

// NewAgentRuntime starts the event pump and the bus subscription; they
// end with ctx or Close.
func NewAgentRuntime(ctx context.Context, o AgentOptions) *AgentRuntime {
	ctx, stop := context.WithCancel(ctx)
	r := &AgentRuntime{ctx: ctx, opt: o, out: make(chan Event), stop: stop, asking: map[string][]string{}, mcp: map[string]MCPServer{}}
	r.cond = sync.NewCond(&r.mu)
	go r.pump()
	if o.Bus != nil {
		sub := o.Bus.Subscribe(ctx, bus.Answerer)
		go r.watchBus(sub)
	}
	if len(o.Approvals) > 0 {
		r.push(ApprovalsNeeded{Items: o.Approvals})
	}
	go func() { <-ctx.Done(); r.close() }()
	return r
}

// Attach sets the session turns run on.
func (r *AgentRuntime) Attach(s *agent.Session) { r.mu.Lock(); r.s = s; r.mu.Unlock() }

// Close ends the event stream (the program quits) and the bus subscription.
func (r *AgentRuntime) Close() { r.stop() }

func (r *AgentRuntime) close() {
	r.mu.Lock()
	r.closed = true
	r.cond.Broadcast()
	r.mu.Unlock()
}

// Replay shows a resumed session's history: its user prompts and the
// answers, then a line saying how much came before. Tool calls and
// results are counted, not redrawn.
func (r *AgentRuntime) Replay(history []llm.Message) {
	if len(history) == 0 {
		return
	}
	var evs []Event
	tools := 0
	for _, m := range history {
		switch {
		case m.Role == llm.RoleUser && m.Content != "":
			evs = append(evs, Replayed{Role: "user", Text: m.Content})
		case m.Role == llm.RoleAssistant && m.Content != "":
			evs = append(evs, Replayed{Role: "assistant", Text: m.Content})
		case m.Role == llm.RoleTool:
			tools++
		}
	}
	evs = append(evs, Notice{Text: fmt.Sprintf("resumed: %d earlier messages (%d tool results not shown)", len(history), tools)})
	r.push(evs...)
}

// push queues ev without blocking: agent.Config.OnEvent must not block.
func (r *AgentRuntime) push(evs ...Event) {
	r.mu.Lock()
	r.queue = append(r.queue, evs...)
	r.cond.Broadcast()
	r.mu.Unlock()
}

func (r *AgentRuntime) pump() {
	defer close(r.out)
	for {
		r.mu.Lock()
		for len(r.queue) == 0 && !r.closed {
			r.cond.Wait()
		}
		if r.closed {
			r.mu.Unlock()
			return
		}
		ev := r.queue[0]
		r.queue = r.queue[1:]
		r.mu.Unlock()
		select {
		case r.out <- ev:
		case <-r.ctx.Done():
			return
		}
	}
}

func (r *AgentRuntime) watchBus(sub <-chan bus.Event) {
	for ev := range sub {
		switch ev.Kind {
		case bus.Requested:
			r.mu.Lock()
			call := ""
			if ids := r.asking[ev.Request.Details.Tool]; len(ids) > 0 {
				call, r.asking[ev.Request.Details.Tool] = ids[0], ids[1:]
			}
			r.mu.Unlock()
			r.push(ConfirmRequested{ID: ev.Request.ID, CallID: call, Details: ev.Request.Details})
		case bus.Answered, bus.Withdrawn:
			ans := ""
			if ev.Response != nil {
				ans = string(ev.Response.Answer)
			}
			r.push(ConfirmResolved{ID: ev.Request.ID, Answer: ans, Reason: ev.Err})
		}
	}
}

// OnEvent translates one agent event; pass it as agent.Config.OnEvent.
func (r *AgentRuntime) OnEvent(e agent.Event) {
	if ev := r.translate(e); ev != nil {
		r.push(ev)
	}
}

func (r *AgentRuntime) translate(e agent.Event) Event {
	t := e.Tool
	switch e.Type {
	case agent.EvContent:
		return ContentDelta{Text: e.Text}
	case agent.EvThinking:
		return ThinkingDelta{Text: e.Text}
	case agent.EvAssistant:
		return AssistantDone{Text: e.Text}
	case agent.EvToolCall:
		return ToolStarted{ID: t.ID, Name: t.Name, Args: t.Args}
	case agent.EvToolDecision:
		p := ToolProgress{ID: t.ID, Args: t.Args}
		if t.Decision != nil {
			p.Tool = t.Decision.Tool
		}
		return p
	case agent.EvToolConfirm:
		r.mu.Lock()
		name := t.Name
		if t.Confirm != nil {
			name = t.Confirm.Tool
		}
		r.asking[name] = append(r.asking[name], t.ID)
		r.mu.Unlock()
		return nil
	case agent.EvToolProgress:
		p := ToolProgress{ID: t.ID}
		if c := t.Chunk; c != nil {
			p.Text, p.Message, p.Done, p.Total = c.Text, c.Message, c.Progress, c.Total
		}
		return p
	case agent.EvToolResult:
		f := ToolFinished{ID: t.ID, Status: ToolOK}
		if res := t.Result; res != nil {
			f.Display = res.Display
			if f.Display == "" {
				f.Display = res.ForModel
			}
			if res.Error != nil {
				f.Status, f.Error = ToolError, res.Error.Message
				if res.Error.Kind == tool.ErrPolicy {
					f.Status = ToolDenied
				}
			}
			if d, ok := res.Data.(map[string]any); ok {
				f.Sandbox, _ = d["sandbox"].(string)
			}
		}
		return f
	case agent.EvSystemMessage:
		return SystemMessage{Hook: e.Hook, Text: e.Text}
	case agent.EvNotice, agent.EvHookFailure:
		return Notice{Text: e.Text}
	case agent.EvNotification:
		if n := e.Notification; n != nil {
			return Note{Source: n.Source, Level: n.Level, Text: n.Message}
		}
	case agent.EvFileChange:
		return Notice{Text: "changed " + strings.Join(t.Files, ", ")}
	case agent.EvReset:
		cu := ContextUse{}
		if e.Context != nil {
			cu.Window = e.Context.Window
		}
		r.mu.Lock()
		r.context = cu
		r.mu.Unlock()
		r.push(Notice{Text: "conversation cleared"})
		return ContextChanged{Window: cu.Window}
	case agent.EvContext, agent.EvCompacted:
		if e.Context == nil {
			return nil
		}
		r.mu.Lock()
		r.context = ContextUse{Used: e.Context.Used, Window: e.Context.Window}
		r.mu.Unlock()
		if e.Type == agent.EvCompacted {
			r.push(Notice{Text: fmt.Sprintf("conversation compacted to %d tokens", e.Context.Used)})
		}
		return ContextChanged{Used: e.Context.Used, Window: e.Context.Window}
	case agent.EvBlocked:
		if b := e.Block; b != nil {
			if b.Event == "confirmation" && t != nil {
				return nil // the dialog's answer already shows it
			}
			return Blocked{Event: b.Event, By: b.By, Reason: b.Reason}
		}
	case agent.EvError:
		if strings.HasPrefix(e.Error, agent.ErrCancelled.Error()) {
			return nil // TurnDone says "turn cancelled"
		}
		r.mu.Lock()
		r.errs = append(r.errs, e.Error)
		r.mu.Unlock()
		return ErrorEvent{Err: e.Error}
	}
	return nil
}

// MCPEvent reports a server's status change; pass it as mcp.Options.OnEvent
// (after the registry update, if the caller has one).
func (r *AgentRuntime) MCPEvent(ev mcp.Event) {
	s := MCPServer{Name: ev.Status.Name, State: string(ev.Status.State), Tools: ev.Status.Tools, Error: ev.Status.Error}
	if s.Name == "" {
		s.Name = ev.Server
	}
	r.mu.Lock()
	r.mcp[s.Name] = s
	r.mu.Unlock()
	r.push(MCPChanged{Server: s})
}

// Events implements Runtime.
func (r *AgentRuntime) Events() <-chan Event { return r.out }

func (r *AgentRuntime) session() (*agent.Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s == nil {
		return nil, errors.New("the session is not ready")
	}
	if r.cancel != nil {
		return nil, errors.New("a turn is running; Ctrl-C cancels it")
	}
	return r.s, nil
}

// start runs fn as the turn, cancellable by Cancel, then reports TurnDone.
func (r *AgentRuntime) start(fn func(ctx context.Context, s *agent.Session) (agent.Reply, error)) error {
	s, err := r.session()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(r.ctx)
	r.mu.Lock()
	r.cancel, r.errs = cancel, nil
	r.mu.Unlock()
	go func() {
		rep, err := fn(ctx, s)
		cancel()
		r.mu.Lock()
		r.cancel = nil
		r.mu.Unlock()
		done := TurnDone{Text: rep.Text}
		switch {
		case errors.Is(err, agent.ErrCancelled) || errors.Is(err, context.Canceled):
			done.Cancelled = true
		case err != nil:
			done.Err = err.Error()
			r.mu.Lock()
			done.Shown = slices.Contains(r.errs, done.Err)
			r.mu.Unlock()
		}
		r.push(done)
	}()
	return nil
}

// Submit implements Runtime.
func (r *AgentRuntime) Submit(prompt string) error {
	return r.start(func(ctx context.Context, s *agent.Session) (agent.Reply, error) {
		if r.opt.Attach != nil {
			var notes []string
			prompt, notes = r.opt.Attach(ctx, prompt)
			for _, n := range notes {
				r.push(Notice{Text: n})
			}
		}
		return s.Run(ctx, prompt)
	})
}

// Cancel implements Runtime.
func (r *AgentRuntime) Cancel() {
	r.mu.Lock()
	c := r.cancel
	r.mu.Unlock()
	if c != nil {
		c()
	}
}

// Answer implements Runtime.
func (r *AgentRuntime) Answer(id string, a bus.Answer, feedback string) error {
	if r.opt.Bus == nil {
		return errors.New("no confirmation bus")
	}
	return r.opt.Bus.Respond(bus.Response{ID: id, Answer: a, Feedback: feedback})
}

// Approve implements Runtime.
func (r *AgentRuntime) Approve(id string, ok bool) error {
	r.mu.Lock()
	ch, waiting := r.waiting[id]
	delete(r.waiting, id)
	r.mu.Unlock()
	if waiting {
		ch <- ok
		return nil
	}
	if r.opt.Approve == nil {
		return nil
	}
	return r.opt.Approve(id, ok)
}

// Command implements Runtime: /compact and /<skill> run here, /reload,
// /model NAME and /clear through AgentOptions.Job, the rest through
// AgentOptions.Command.
func (r *AgentRuntime) Command(c Command) (string, bool, error) {
	switch c.Kind {
	case CmdCompact:
		return "", true, r.start(func(ctx context.Context, s *agent.Session) (agent.Reply, error) { return agent.Reply{}, s.Compact(ctx) })
	case CmdSkill:
		return r.skill(c)
	case CmdReload, CmdClear:
		return r.job(c)
	case CmdModel:
		if len(c.Args) > 0 {
			return r.job(c)
		}
	case CmdSkills:
		if r.opt.Command == nil && r.opt.Skills != nil {
			var b strings.Builder
			for _, e := range r.opt.Skills.List() {
				fmt.Fprintf(&b, "/%s\n", e.Name)
			}
			return strings.TrimRight(b.String(), "\n"), false, nil
		}
	}
	if r.opt.Command == nil {
		return "", false, fmt.Errorf("/%s is not available in this session", c.Kind)
	}
	out, err := r.opt.Command(r.ctx, c)
	return out, false, err
}

func (r *AgentRuntime) skill(c Command) (string, bool, error) {
	if !r.isSkill(c.Name) {
		if src, ok := r.extCommand(c.Name); ok {
			go r.runExtCommand(src, c)
			return "", false, nil
		}
	}
	if r.opt.Skills == nil {
		return "", false, fmt.Errorf("unknown command /%s; /help lists them", c.Name)
	}
	if _, err := r.opt.Skills.Get(c.Name); err != nil {
		return "", false, fmt.Errorf("unknown command /%s (%v); /help lists them", c.Name, err)
	}
	values := SkillValues(c)
	return "", true, r.start(func(ctx context.Context, s *agent.Session) (agent.Reply, error) {
		return s.RunSkill(ctx, r.opt.Skills, c.Name, values)
	})
}

// job runs c through AgentOptions.Job as work on the session; its text
// arrives as a Notice before TurnDone.
func (r *AgentRuntime) job(c Command) (string, bool, error) {
	if r.opt.Job == nil {
		return "", false, fmt.Errorf("/%s is not available in this session", c.Kind)
	}
	return "", true, r.start(func(ctx context.Context, s *agent.Session) (agent.Reply, error) {
		out, err := r.opt.Job(ctx, s, c)
		if out != "" {
			r.push(Notice{Text: out})
		}
		return agent.Reply{}, err
	})
}

// RequestApprovals asks the user about more things to approve (after a
// reload brought new workspace servers or hooks).
func (r *AgentRuntime) RequestApprovals(items []Approval) {
	if len(items) > 0 {
		r.push(ApprovalsNeeded{Items: items})
	}
}

// SkillValues turns /<skill> arguments into placeholder values: key=value
// words set key; the whole text after the name is also "args" and "input".
func SkillValues(c Command) map[string]string {
	v := map[string]string{}
	for _, a := range c.Args {
		if k, val, ok := strings.Cut(a, "="); ok && k != "" {
			v[k] = val
		}
	}
	if c.Rest != "" {
		if _, ok := v["args"]; !ok {
			v["args"] = c.Rest
		}
		if _, ok := v["input"]; !ok {
			v["input"] = c.Rest
		}
	}
	return v
}

// Status implements Runtime.
func (r *AgentRuntime) Status() Status {
	var st Status
	if r.opt.Status != nil {
		st = r.opt.Status()
	}
	r.mu.Lock()
	sess := r.s
	st.Context = r.context
	r.mu.Unlock()
	if sess != nil { // outside r.mu: the session may be publishing
		if cu := sess.Context(); cu.Window > 0 || cu.Used > 0 {
			st.Context = ContextUse{Used: cu.Used, Window: cu.Window}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(st.MCP) == 0 {
		for _, s := range r.mcp {
			st.MCP = append(st.MCP, s)
		}
		sortServers(st.MCP)
	}
	return st
}

// AskHook asks the user about an unapproved hook through the approval list
// and waits for the answer; pass it as the hook engine's Approve callback.
func (r *AgentRuntime) AskHook(ctx context.Context, req hooks.ApprovalRequest) (bool, error) {
	id := "hook:" + req.ID
	ch := make(chan bool, 1)
	r.mu.Lock()
	if r.waiting == nil {
		r.waiting = map[string]chan bool{}
	}
	r.waiting[id] = ch
	r.mu.Unlock()
	name := req.ID
	if req.Hook != nil && req.Hook.Name != "" {
		name = req.Hook.Name
		if req.Hook.Event != "" {
			name += " (" + string(req.Hook.Event) + ")"
		}
	}
	r.push(ApprovalsNeeded{Items: []Approval{{ID: id, Kind: "hook", Name: name, Detail: req.Command, Changed: req.Changed}}})
	select {
	case ok := <-ch:
		return ok, nil
	case <-ctx.Done():
		r.mu.Lock()
		delete(r.waiting, id)
		r.mu.Unlock()
		return false, ctx.Err()
	}
}
