package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"github.com/ollm/ollm/cmd/cli/tui"
	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/schema"
)

// attachSession makes `ollm` without a subcommand open the TUI when stdin
// and stdout are terminals; otherwise the root's previous action (if any)
// runs. --resume [ID], when the root has that flag, resumes a session.
func attachSession(root *cobra.Command, f *Factory) {
	prev := root.RunE
	root.Long += sessionHelp
	if root.Args == nil {
		root.Args = maxArgs(1)
	}
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if !f.IO.StdinTTY || !f.IO.StdoutTTY {
			if prev != nil {
				return prev(cmd, args)
			}
			return &FlagError{Err: errors.New("the interactive session needs a terminal; use `ollm run -p PROMPT` for scripts")}
		}
		resuming, id, err := rootResume(cmd, args)
		if err != nil {
			return err
		}
		return runSessions(cmd.Context(), f, resuming, id) // session_cmds.go: /resume switches
	}
}

// sessionHelp is the root's help about the interactive session.
const sessionHelp = `

In a terminal, ollm alone opens the interactive session. Its first screen
says where it runs: the workspace, the model and its server, the profile
generation, the workspace's trust (what an unapproved workspace holds
back; ` + "`ollm trust`" + ` or /trust approves it), the extensions, MCP servers,
hooks and skills loaded, and every problem found at the start - a profile
that does not apply (with its reason, and the generation that runs
instead), a server that does not answer, a model that is not installed
(the session offers to pull it). The status line shows the model, the
profile generation, the approval mode, the shell's sandbox, the MCP
servers' states and the context used.

/model lists the models the server offers (Ollama: installed models with
size and parameters) to pick with the arrow keys and Enter; /model NAME
switches, and asks to pull NAME into Ollama first when it is not
installed, with a progress bar. ` + "`ollm model list|pull`" + ` do the same
from a shell.

Typing / opens a menu of every command (built-in, extensions', skills,
Claude and Gemini CLI commands, MCP prompts); @ completes a workspace
file, whose contents go with the prompt. /trust reviews and approves the
workspace in place; /resume switches to a saved session. The exit prints
the ` + "`ollm --resume ID`" + ` that comes back to this one.`

// runSession runs the interactive session in the terminal.
func runSession(ctx context.Context, f *Factory, resuming bool, resume string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	home, err := f.Home()
	if err != nil {
		return err
	}
	var (
		tr      *agent.Transcript
		id      string
		history []llm.Message
	)
	if resuming {
		if tr, id, history, err = agent.Resume(home.Sessions(), resume, f.Now); err != nil {
			return &FlagError{Err: fmt.Errorf("--resume: %w", err)}
		}
	} else {
		id = agent.NewID(f.Now())
	}

	// MCP servers start while the runtime is built, before the UI exists:
	// until then status comes from the runtime itself. Hooks that need an
	// approval are asked about at the start (the gate holds them until
	// the user answers) or, when they appear later, when they first run.
	var uiPtr atomic.Pointer[tui.AgentRuntime]
	notice := func(s string) {
		if ui := uiPtr.Load(); ui != nil {
			ui.OnEvent(agent.Event{Type: agent.EvNotice, Text: s})
		}
	}
	// What ollm writes to stderr from here on (a profile that does not
	// apply, and the generation that runs instead) goes to the banner, then
	// into the conversation: the full screen would hide it.
	errLines, restoreStderr := captureStderr(f)
	defer restoreStderr()
	gate := newApprovalGate(ctx, notice)
	notes := &pendingNotes{ui: &uiPtr}
	var rtPtr atomic.Pointer[runtime.Runtime]
	rt, err := f.NewRuntime(ctx, runtime.Options{
		OnNotify: notes.notify,
		ReservedCommand: func(name string) bool {
			if tui.Reserved(name) {
				return true
			}
			if r := rtPtr.Load(); r != nil && r.Skills != nil {
				_, err := r.Skills.Get(name)
				return err == nil
			}
			return false
		},
		SessionID: id,
		ApproveHook: gate.hook(func(ctx context.Context, r hooks.ApprovalRequest) (bool, error) {
			if ui := uiPtr.Load(); ui != nil {
				return ui.AskHook(ctx, r)
			}
			return false, nil
		}),
		OnMCP: func(e mcp.Event) {
			if ui := uiPtr.Load(); ui != nil {
				ui.MCPEvent(e)
			}
		},
		OnNotice: notice,
	})
	if err != nil {
		if tr != nil {
			tr.Close()
		}
		return err
	}
	defer rt.Close()
	gate.rt = rt
	rtPtr.Store(rt)

	ss := &sessionState{rt: rt, gate: gate, current: f.CurrentGeneration}
	ss.generation()
	ui := tui.NewAgentRuntime(ctx, tui.AgentOptions{
		Bus:         rt.Bus,
		Skills:      rt.Skills,
		Status:      ss.status,
		Command:     func(ctx context.Context, c tui.Command) (string, error) { return sessionCommand(rt, c) },
		Job:         ss.job,
		Approvals:   gate.items(),
		Approve:     gate.approve,
		Attach:      sessionAttach(rt),
		ExtCommands: extCommands{rt},
	})
	defer ui.Close()
	ss.ui = ui
	uiPtr.Store(ui)
	early := errLines.attach(notice)
	ui.Show(sessionBanner(rt, int(ss.gen.Load()), ss.pin.Load(), append(early, rt.Warnings...)))
	notes.flush()
	go func() { ui.Show(checkModel(ctx, rt)) }()

	cfg := rt.AgentConfig()
	cfg.OnEvent = ui.OnEvent
	cfg.History = history
	if tr == nil {
		if tr, err = agent.Create(home.Sessions(), id, rt.Workspace.Root, cfg.Model, f.Now); err != nil {
			return err
		}
	}
	cfg.Transcript = tr
	defer tr.Close()
	sess, err := agent.New(cfg)
	if err != nil {
		return err
	}
	ui.Attach(sess)
	ui.Replay(history) // --resume: the user sees what the model remembers

	m := tui.New(ui, tui.Options{Style: glamourStyle(), HistoryFile: home.InputHistory(rt.Workspace.Root), Models: sessionModels{rt},
		Workspace: rt.Workspace.Root, Trust: sessionTrust{f}, Sessions: sessionList{dir: home.Sessions(), current: id}})
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(f.IO.In), tea.WithOutput(f.IO.Out))
	go func() { // rt.Warnings are in the banner
		if err := sess.Start(ctx); err != nil {
			ui.OnEvent(agent.Event{Type: agent.EvError, Error: err.Error()})
		}
	}()
	_, err = p.Run()
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	_ = sess.Close(cctx)
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return err
	}
	return sessionExit(f, m.ResumeTo(), id, rt.Workspace.Root) // session_cmds.go
}

// sessionState is what the TUI's status line and session commands need
// beyond the runtime.
type sessionState struct {
	rt *runtime.Runtime
	// current reports the generation the session runs and whether a
	// rollback pinned it (Factory.CurrentGeneration).
	current func() (int, bool)
	gate    *approvalGate
	ui      *tui.AgentRuntime
	gen     atomic.Int64
	pin     atomic.Bool
}

// generation reads the generation the session runs (0: none applied) and
// whether a rollback pinned it.
func (ss *sessionState) generation() {
	if ss.current == nil {
		return
	}
	n, pinned := ss.current()
	ss.gen.Store(int64(n))
	ss.pin.Store(pinned)
}

func (ss *sessionState) status() tui.Status {
	model, _ := ss.rt.Model()
	st := tui.Status{Model: model.Name, Provider: model.Provider, Generation: int(ss.gen.Load()), Pinned: ss.pin.Load(),
		Sandbox: sandboxLabel(ss.rt.Resolved())}
	if pol := ss.rt.Policy(); pol != nil {
		st.Mode = string(pol.Mode())
	}
	for _, s := range ss.rt.MCPStatus() {
		st.MCP = append(st.MCP, tui.MCPServer{Name: s.Name, State: string(s.State), Tools: s.Tools, Error: s.Error})
	}
	return st
}

// job runs the commands that change the session: /reload, /model NAME,
// /clear.
func (ss *sessionState) job(ctx context.Context, s *agent.Session, c tui.Command) (string, error) {
	switch c.Kind {
	case tui.CmdReload:
		st, err := reloadSession(ctx, ss.rt, s)
		if err != nil {
			return "", fmt.Errorf("reload failed, the session keeps its previous setup: %w", err)
		}
		ss.generation()
		if ss.ui != nil {
			ss.ui.RequestApprovals(ss.gate.items())
		}
		return st.String(), nil
	case tui.CmdModel:
		return switchModel(ctx, ss.rt, s, c.Args[0])
	case tui.CmdClear:
		return "", s.Reset()
	}
	return "", fmt.Errorf("/%s is not a session command", c.Kind)
}

// reloadSession reloads the runtime from the profile on disk and points
// the session at the result (/reload).
func reloadSession(ctx context.Context, rt *runtime.Runtime, s *agent.Session) (runtime.ReloadStats, error) {
	st, err := rt.Reload(ctx)
	if err != nil {
		return st, err
	}
	rt.Configure(s)
	return st, nil
}

// switchModel switches the session's model (/model NAME) for the rest of
// the session, reloads included.
func switchModel(ctx context.Context, rt *runtime.Runtime, s *agent.Session, name string) (string, error) {
	model, p, err := rt.SetModel(ctx, name)
	if err != nil {
		return "", fmt.Errorf("model %s: %w", name, err)
	}
	s.SetModel(p, model.Name, model.ContextWindow)
	return fmt.Sprintf("model %s for the rest of the session", model.Name), nil
}

// approvalGate asks about untrusted hooks and workspace MCP servers at the
// start of a session, one by one, and holds a hook that wants to run until
// its question is answered. A refused hook is not asked about again in
// this session.
type approvalGate struct {
	ctx    context.Context
	notice func(string)
	rt     *runtime.Runtime

	mu      sync.Mutex
	asked   map[string]*gateItem // by tui approval id ("hook:" + hook id)
	refused map[string]bool      // hook ids
}

type gateItem struct {
	req  hooks.ApprovalRequest
	done chan struct{}
	ok   bool
}

func newApprovalGate(ctx context.Context, notice func(string)) *approvalGate {
	return &approvalGate{ctx: ctx, notice: notice, asked: map[string]*gateItem{}, refused: map[string]bool{}}
}

// items lists what to approve now: the runtime's pending hooks and
// workspace servers not asked about yet.
func (g *approvalGate) items() []tui.Approval {
	var out []tui.Approval
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.rt.PendingHooks() {
		id := "hook:" + r.ID
		if _, seen := g.asked[id]; seen || g.refused[r.ID] {
			continue
		}
		g.asked[id] = &gateItem{req: r, done: make(chan struct{})}
		out = append(out, tui.Approval{ID: id, Kind: "hook", Name: hookLabel(r), Detail: r.Command, Changed: r.Changed, From: hookFrom(r)})
	}
	for _, s := range g.rt.PendingServers() {
		id := "mcp:" + s.Name
		if _, seen := g.asked[id]; seen {
			continue
		}
		g.asked[id] = &gateItem{done: make(chan struct{})}
		out = append(out, tui.Approval{ID: id, Kind: "mcp", Name: s.Name, Detail: runtime.DescribeSpec(s), From: "this workspace"})
	}
	return out
}

// hookFrom says where an unapproved hook comes from, in the user's terms.
func hookFrom(r hooks.ApprovalRequest) string {
	if r.Hook == nil {
		return ""
	}
	switch r.Hook.Scope {
	case schema.ScopeFlag:
		return "--ext " + r.Hook.Dir
	case schema.ScopeStore:
		return "a downloaded extension"
	case schema.ScopeWorkspace:
		return "this workspace"
	}
	return string(r.Hook.Scope)
}

func hookLabel(r hooks.ApprovalRequest) string {
	if r.Hook == nil {
		return r.ID
	}
	return r.Hook.QualifiedName() + " (" + string(r.Hook.Event) + ", " + string(r.Hook.Scope) + ")"
}

// approve records the user's answer: an approved hook is saved like any
// hook approval; an approved workspace server starts (for this session).
func (g *approvalGate) approve(id string, ok bool) error {
	g.mu.Lock()
	it, known := g.asked[id]
	g.mu.Unlock()
	if !known {
		return fmt.Errorf("nothing waits for approval as %q", id)
	}
	var err error
	switch {
	case strings.HasPrefix(id, "hook:"):
		if ok {
			err = g.rt.ApproveHook(it.req)
		}
		g.mu.Lock()
		it.ok = ok && err == nil
		if !it.ok {
			g.refused[it.req.ID] = true
		}
		g.mu.Unlock()
	case strings.HasPrefix(id, "mcp:") && ok:
		go g.startServer(strings.TrimPrefix(id, "mcp:"))
	}
	select {
	case <-it.done:
	default:
		close(it.done)
	}
	return err
}

func (g *approvalGate) startServer(name string) {
	st, err := g.rt.ApproveServer(g.ctx, name)
	switch {
	case err != nil:
		g.notice(err.Error())
	default:
		g.notice(fmt.Sprintf("MCP server %s %s: %d tools (approved for this session; `ollm trust` approves the workspace)", name, st.State, st.Tools))
	}
}

// hook wraps the engine's Approve callback: a hook listed at the start
// waits for that answer, a refused one is not asked again, any other
// is asked through ask.
func (g *approvalGate) hook(ask func(context.Context, hooks.ApprovalRequest) (bool, error)) func(context.Context, hooks.ApprovalRequest) (bool, error) {
	return func(ctx context.Context, r hooks.ApprovalRequest) (bool, error) {
		g.mu.Lock()
		it, listed := g.asked["hook:"+r.ID]
		refused := g.refused[r.ID]
		g.mu.Unlock()
		switch {
		case refused:
			return false, nil
		case listed:
			select {
			case <-it.done:
			case <-ctx.Done():
				return false, ctx.Err()
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			return it.ok && it.req.Hash == r.Hash, nil
		}
		ok, err := ask(ctx, r)
		if err == nil && !ok {
			g.mu.Lock()
			g.refused[r.ID] = true
			g.mu.Unlock()
		}
		return ok, err
	}
}

// glamourStyle picks the markdown style; OLLM_GLAMOUR_STYLE overrides it.
func glamourStyle() string {
	if s := os.Getenv("OLLM_GLAMOUR_STYLE"); s != "" {
		return s
	}
	return "dark"
}

// sessionCommand answers the slash commands that only read the runtime.
func sessionCommand(rt *runtime.Runtime, c tui.Command) (string, error) {
	var b strings.Builder
	switch c.Kind {
	case tui.CmdTools:
		for _, t := range rt.AgentTools().List() {
			fmt.Fprintf(&b, "%-28s %s\n", t.Name(), t.Kind())
		}
	case tui.CmdMCP:
		for _, s := range rt.MCPStatus() {
			fmt.Fprintf(&b, "%-20s %-10s %d tools %s\n", s.Name, s.State, s.Tools, s.Error)
		}
		if b.Len() == 0 {
			return "no MCP servers", nil
		}
	case tui.CmdExt:
		names := []string{}
		for _, e := range rt.Ext.List() {
			state := string(e.State)
			if e.Active {
				state += ", active"
			}
			names = append(names, fmt.Sprintf("%-24s %s", e.Name, state))
		}
		if cmds := (extCommands{rt}).Commands(); len(cmds) > 0 {
			names = append(names, "commands:")
			for _, c := range cmds {
				names = append(names, fmt.Sprintf("  /%-20s %s [%s]", c.Name, c.Description, c.Source))
			}
		}
		if len(names) == 0 {
			return "no extensions", nil
		}
		return strings.Join(names, "\n"), nil
	case tui.CmdSkills:
		for _, e := range rt.Skills.List() {
			fmt.Fprintf(&b, "/%-24s %s\n", e.Name, e.Description)
		}
		if b.Len() == 0 {
			return "no skills", nil
		}
	case tui.CmdModel:
		model, _ := rt.Model()
		return "model " + model.Name + "; /model NAME switches it", nil
	default:
		return "", fmt.Errorf("/%s is not wired yet", c.Kind)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
