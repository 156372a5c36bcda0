package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/ext"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
	"github.com/ollm/ollm/tools"
)

// Runtime is everything a session runs on, wired from one resolved profile:
// the hook engine over profile and extension hooks, the extension manager,
// the profile's MCP servers, the built-in and MCP tools, skills, the
// policy, the confirmation bus and the model provider. `ollm run` and the
// TUI both build it here.
type Runtime struct {
	Resolved  *schema.Resolved // after the workspace gate
	Held      hooks.Held       // what an unapproved workspace would have done
	Home      store.Home
	Workspace store.Workspace
	SessionID string
	Hooks     *hooks.Engine
	Tools     *tool.Registry // built-in and extension tools
	MCP       *mcp.Manager   // the profile's (and .mcp.json's) servers
	Ext       *ext.Manager
	Skills    *skills.Registry
	Policy    *policy.Policy
	Bus       *bus.Bus
	Provider  llm.Provider
	Warnings  []string // problems that did not stop the runtime
}

// RuntimeOptions say what the command decided beyond the profile.
type RuntimeOptions struct {
	SessionID string
	Mode      string // --approval-mode; "" keeps the profile's
	// ApproveHook asks about an unapproved hook; nil skips such hooks with
	// a notice (non-interactive runs).
	ApproveHook func(context.Context, hooks.ApprovalRequest) (bool, error)
	OnExt       func(ext.Event)
	OnMCP       func(mcp.Event)
}

// NewRuntime wires the runtime. Profile and policy errors are ConfigErrors.
func (f *Factory) NewRuntime(ctx context.Context, o RuntimeOptions) (*Runtime, error) {
	r, err := f.LoadProfile()
	if err != nil {
		return nil, err
	}
	home, err := f.Home()
	if err != nil {
		return nil, err
	}
	ws, err := f.Workspace()
	if err != nil {
		return nil, err
	}
	approved, _, err := hooks.WorkspaceApproved(home, ws)
	if err != nil {
		return nil, err
	}
	g, held := hooks.GateWorkspace(r, approved)
	rt := &Runtime{Resolved: g, Held: held, Home: home, Workspace: ws, SessionID: o.SessionID, Bus: bus.New(bus.Options{})}
	if !held.Empty() {
		rt.Warnings = append(rt.Warnings, "the workspace profile is not approved: its hooks, MCP servers, allow rules and looser modes are held back; run `ollm trust` to review it")
	}
	for _, p := range g.Problems {
		rt.Warnings = append(rt.Warnings, problemText(p))
	}

	pol, err := policy.Compile(g.Profile.Policy, policy.Options{Layers: g.RuleScopes})
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	if o.Mode != "" {
		m, err := policy.ParseMode(o.Mode)
		if err != nil {
			return nil, &FlagError{Err: err}
		}
		pol = pol.WithMode(m)
	}
	rt.Policy = pol

	model := g.Profile.Model
	// The builtin profile spells out Ollama's default endpoint, which would
	// hide OLLAMA_HOST; Ollama's own variable wins over that default.
	if h := f.Getenv("OLLAMA_HOST"); h != "" && (model.Provider == "" || model.Provider == "ollama") &&
		(model.Endpoint == "" || model.Endpoint == llm.DefaultOllamaEndpoint) {
		model.Endpoint = ""
	}
	rt.Provider, err = llm.New(model, llm.Config{Getenv: f.Getenv})
	if err != nil {
		return nil, &ConfigError{Err: err}
	}

	// Profile hooks; extension hooks join through the extension manager,
	// which knows which extensions are enabled.
	prof := *g
	prof.Extensions = nil
	hreg, probs := hooks.FromResolved(&prof, hooks.BuildOptions{Home: home.Dir})
	for _, p := range probs {
		rt.Warnings = append(rt.Warnings, problemText(p))
	}
	rt.Hooks = hooks.New(hreg, hooks.ProfileOptions(g.Profile.Hooks, hooks.Options{
		Session:   hooks.Session{ID: o.SessionID, Cwd: ws.Root},
		LogDir:    home.Logs(),
		Approvals: hooks.FileApprovals{Path: home.TrustedHooks()},
		Approve:   o.ApproveHook,
	}))

	cfg := tools.Config{Root: ws.Root, ExtraDirs: g.Profile.Tools.ExtraDirs, Tools: g.Profile.Tools,
		Home: home, Workspace: ws, HTTP: &http.Client{Timeout: 60 * time.Second}, Environ: f.Environ, Getenv: f.Getenv}
	builtin := tools.Builtin(cfg)
	rt.Tools = tool.NewRegistry(builtin...)
	reserved := map[string]bool{}
	for _, t := range builtin {
		reserved[t.Name()] = true
	}

	mo := mcp.Options{LogDir: home.Logs(), Environ: f.Environ(), Reserved: func(n string) bool { return reserved[n] }, OnEvent: o.OnMCP}
	if ws.Root != "" {
		mo.Roots = []string{ws.Root}
	}
	mo.Approved = func(mcp.Spec) bool { return approved || g.Profile.Hooks.TrustWorkspace }
	rt.MCP = mcp.FromResolved(g, mo)
	rt.MCP.Start()

	var errs []error
	rt.Skills, errs = skills.Base(g.Profile.Skills, home.Skills(), ws.Skills())
	for _, e := range errs {
		rt.Warnings = append(rt.Warnings, e.Error())
	}
	emo := mo
	emo.OnEvent = nil
	if t := g.Profile.MCP.ConnectionTimeout; t > 0 {
		emo.ConnectionTimeout = time.Duration(t) * time.Millisecond
	}
	rt.Ext = ext.New(g, ext.Options{StateFile: home.ExtensionState(), LogDir: home.Logs(), Home: home.Dir,
		Hooks: hreg, Tools: rt.Tools, Skills: rt.Skills, Servers: &ext.MCPServers{Options: emo, OnEvent: o.OnMCP},
		LookupEnv: func(k string) (string, bool) { v := f.Getenv(k); return v, v != "" }, OnEvent: o.OnExt})
	st := rt.Ext.Start(ctx)
	for _, e := range st.Errors {
		rt.Warnings = append(rt.Warnings, e.Error())
	}
	if err := rt.MCP.WaitReady(ctx); err != nil {
		rt.Close()
		return nil, ErrCancelled
	}
	for _, s := range rt.MCP.Status() {
		if s.Error != "" {
			rt.Warnings = append(rt.Warnings, fmt.Sprintf("MCP server %s: %s", s.Name, s.Error))
		}
	}
	return rt, nil
}

// AgentTools are the tools the model is offered: built-in and extension
// tools, then the ready MCP servers' tools, looked up live so a server that
// comes or goes mid-session is seen at the next turn.
func (rt *Runtime) AgentTools() agent.Tools { return runtimeTools{rt} }

type runtimeTools struct{ rt *Runtime }

func (t runtimeTools) List() []tool.Tool {
	list := t.rt.Tools.List()
	seen := make(map[string]bool, len(list))
	for _, x := range list {
		seen[x.Name()] = true
	}
	for _, x := range t.rt.MCP.Tools() {
		if !seen[x.Name()] {
			list = append(list, x)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name() < list[j].Name() })
	return list
}

func (t runtimeTools) Get(name string) (tool.Tool, bool) {
	if x, ok := t.rt.Tools.Get(name); ok {
		return x, true
	}
	return t.rt.MCP.Lookup(name)
}

// AgentConfig is the session configuration the runtime implies; the caller
// adds the transcript, history, events and limits.
func (rt *Runtime) AgentConfig() agent.Config {
	return agent.Config{
		Provider: rt.Provider, Model: rt.Resolved.Profile.Model.Name, Tools: rt.AgentTools(),
		Hooks: rt.Hooks, Policy: rt.Policy, Bus: rt.Bus, SessionID: rt.SessionID, Cwd: rt.Workspace.Root,
		MaxTurns: rt.Resolved.Profile.Agent.MaxTurns, ContextWindow: rt.Resolved.Profile.Model.ContextWindow,
	}
}

// Close stops everything the runtime started.
func (rt *Runtime) Close() error {
	var errs []error
	if rt.Ext != nil {
		_, err := rt.Ext.Close()
		errs = append(errs, err)
	}
	if rt.MCP != nil {
		errs = append(errs, rt.MCP.Close())
	}
	if rt.Hooks != nil {
		errs = append(errs, rt.Hooks.Close())
	}
	return errors.Join(errs...)
}

func problemText(p schema.Problem) string {
	s := p.Message
	if p.Pos != "" {
		s = p.Pos + ": " + s
	} else if p.File != "" {
		s = p.File + ": " + s
	}
	if p.Fix != "" {
		s += " (" + p.Fix + ")"
	}
	return s
}
