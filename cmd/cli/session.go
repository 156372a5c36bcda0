package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"github.com/ollm/ollm/cmd/cli/tui"
	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/resolver"
)

// attachSession makes `ollm` without a subcommand open the TUI when stdin
// and stdout are terminals; otherwise the root's previous action (if any)
// runs. --resume [ID], when the root has that flag, resumes a session.
func attachSession(root *cobra.Command, f *Factory) {
	prev := root.RunE
	if root.Args == nil {
		root.Args = cobra.MaximumNArgs(1)
	}
	root.RunE = func(cmd *cobra.Command, args []string) error {
		resume, resuming := "", false
		if fl := cmd.Flags().Lookup("resume"); fl != nil && fl.Changed {
			resuming = true
			if v := fl.Value.String(); v != fl.NoOptDefVal {
				resume = v
			}
			if len(args) == 1 && resume == "" {
				resume = args[0]
				args = nil
			}
		}
		if !f.IO.StdinTTY || !f.IO.StdoutTTY || len(args) > 0 {
			if prev != nil {
				return prev(cmd, args)
			}
			if len(args) > 0 {
				return &FlagError{Err: fmt.Errorf("unknown command %q for \"ollm\"", args[0])}
			}
			return &FlagError{Err: errors.New("the interactive session needs a terminal; use `ollm run -p PROMPT` for scripts")}
		}
		return runSession(cmd.Context(), f, resuming, resume)
	}
}

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

	// MCP servers start and hooks may ask for approval while the runtime
	// is built, before the UI exists: until then status comes from the
	// runtime itself and an unapproved hook is skipped.
	var uiPtr atomic.Pointer[tui.AgentRuntime]
	rt, err := f.NewRuntime(ctx, RuntimeOptions{
		SessionID: id,
		ApproveHook: func(ctx context.Context, r hooks.ApprovalRequest) (bool, error) {
			if ui := uiPtr.Load(); ui != nil {
				return ui.AskHook(ctx, r)
			}
			return false, nil
		},
		OnMCP: func(e mcp.Event) {
			if ui := uiPtr.Load(); ui != nil {
				ui.MCPEvent(e)
			}
		},
	})
	if err != nil {
		if tr != nil {
			tr.Close()
		}
		return err
	}
	defer rt.Close()
	ws := rt.Workspace

	gen := 0
	if g, ok, err := resolver.LoadCurrent(home, ws); err == nil && ok {
		gen = g.Number
	}
	model := rt.Resolved.Profile.Model.Name
	ui := tui.NewAgentRuntime(ctx, tui.AgentOptions{
		Bus:    rt.Bus,
		Skills: rt.Skills,
		Status: func() tui.Status {
			st := tui.Status{Model: model, Generation: gen}
			for _, s := range rt.MCP.Status() {
				st.MCP = append(st.MCP, tui.MCPServer{Name: s.Name, State: string(s.State), Tools: s.Tools, Error: s.Error})
			}
			return st
		},
		Command: func(ctx context.Context, c tui.Command) (string, error) { return sessionCommand(rt, c) },
	})
	defer ui.Close()
	uiPtr.Store(ui)

	cfg := rt.AgentConfig()
	cfg.OnEvent = ui.OnEvent
	cfg.History = history
	if tr == nil {
		if tr, err = agent.Create(home.Sessions(), id, ws.Root, model, f.Now); err != nil {
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

	m := tui.New(ui, tui.Options{Style: glamourStyle()})
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(f.IO.In), tea.WithOutput(f.IO.Out))
	go func() {
		for _, w := range rt.Warnings {
			ui.OnEvent(agent.Event{Type: agent.EvNotice, Text: w})
		}
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
	return nil
}

// glamourStyle picks the markdown style; OLLM_GLAMOUR_STYLE overrides it.
func glamourStyle() string {
	if s := os.Getenv("OLLM_GLAMOUR_STYLE"); s != "" {
		return s
	}
	return "dark"
}

// sessionCommand answers the slash commands that only read the runtime.
func sessionCommand(rt *Runtime, c tui.Command) (string, error) {
	var b strings.Builder
	switch c.Kind {
	case tui.CmdTools:
		for _, t := range rt.AgentTools().List() {
			fmt.Fprintf(&b, "%-28s %s\n", t.Name(), t.Kind())
		}
	case tui.CmdMCP:
		for _, s := range rt.MCP.Status() {
			fmt.Fprintf(&b, "%-20s %-10s %d tools %s\n", s.Name, s.State, s.Tools, s.Error)
		}
		if b.Len() == 0 {
			return "no MCP servers", nil
		}
	case tui.CmdExt:
		names := []string{}
		for _, e := range rt.Resolved.Extensions {
			names = append(names, e.Name)
		}
		sort.Strings(names)
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
		if len(c.Args) > 0 {
			return "", errors.New("switching the model mid-session is not wired yet; restart with --model " + c.Args[0])
		}
		return "model " + rt.Resolved.Profile.Model.Name, nil
	case tui.CmdClear:
		return "", nil
	default:
		return "", fmt.Errorf("/%s is not wired yet", c.Kind)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
