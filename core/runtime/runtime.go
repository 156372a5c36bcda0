package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/ext"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
	"github.com/ollm/ollm/tools"
)

// Runtime is everything a session runs on, wired from one resolved profile
// (the workspace's current generation, as Options.Source gives it): the
// hook engine over profile and extension hooks, the extension manager, the
// profile's MCP servers, the built-in and MCP tools, skills, the policy,
// the confirmation bus and the model provider. `ollm run`, the TUI and
// editors drive the same Runtime; Reload switches it to the newest
// generation without ending the session. It never evaluates CUE: the
// command layer hands it what to run.
//
// The registries (Tools, Skills, the hook registry) and the extension
// manager live as long as the Runtime and are refilled by Reload; the
// engine, the MCP servers, the policy and the provider are replaced, so
// read them through the methods.
type Runtime struct {
	started time.Time // the session block of events raised outside the agent
	// gitWatch holds a repository a hook or an MCP server creates in the
	// workspace while it runs (the shell tool holds its commands' own).
	gitWatch  *sandbox.GitWatch
	Home      store.Home
	Workspace store.Workspace
	SessionID string
	Bus       *bus.Bus
	Tools     *tool.Registry   // built-in and extension tools
	Skills    *skills.Registry // profile, folder, extension and MCP prompt skills
	Ext       *ext.Manager
	// extServers run the extensions' MCP servers, in the background.
	extServers *ext.MCPServers
	// holdServers: New has not finished; the profile's servers start at
	// its end.
	holdServers bool
	hookLog     *lazyLog    // logs/hooks.log, opened on the first line
	jobs        *tools.Jobs // background shell jobs of the session
	Warnings    []string    // problems that did not stop the runtime (at start)

	opts   Options
	hreg   *hooks.Registry
	ctx    context.Context // ends with Close: background MCP prompt loading
	cancel context.CancelFunc
	wg     sync.WaitGroup
	bgMu   sync.Mutex // guards closed and wg.Add
	closed bool
	// wsTrusted says whether workspace MCP servers may start without a
	// per-server approval (workspace approved, or hooks.trustWorkspace).
	wsTrusted    atomic.Bool
	builtinNames atomic.Pointer[map[string]bool]

	mu        sync.RWMutex
	resolved  *schema.Resolved // after the workspace gate
	held      schema.Trust
	engine    *hooks.Engine
	mcp       *mcp.Manager
	pending   map[string]mcp.Spec     // workspace servers waiting for approval
	approved  map[string]*mcp.Manager // workspace servers approved in this session, and an editor's
	editor    map[string]bool         // those of approved an editor passed (StartServer)
	allowed   map[string]string       // server -> digest of the config approved in this session
	mcpOwners map[string]bool         // servers whose prompts are in Skills
	live      map[*mcp.Manager]bool   // managers not torn down: their prompts may join Skills
	pol       *policy.Policy
	provider  llm.Provider
	model     schema.Model
	override  string // /model NAME: wins over the profile's model on reload
	builtin   []string
	// agentFiles are the project's and the user's Claude agent files.
	agentFiles []schema.Subagent

	// startGate holds back servers whose tools are cached until the first
	// model request (firstrequest.go); startTimer opens it anyway.
	startGate     *mcp.StartGate
	startTimer    *time.Timer
	cachedMu      sync.Mutex
	cachedServers map[string]bool // connecting with cached tools offered
}

// Source gives the resolution to run: Load the gated view of the current
// generation (what an unapproved workspace brings that widens is held
// back), LoadUngated as if the workspace were approved (only to offer its
// held servers one by one).
type Source interface {
	Load() (*schema.Resolved, error)
	LoadUngated() (*schema.Resolved, error)
}

// Options say where the runtime runs and what the command decided beyond
// the profile.
type Options struct {
	Home      store.Home
	Workspace store.Workspace
	Source    Source
	Getenv    func(string) string
	Environ   func() []string
	// MCPAuth fills the OAuth side of the MCP options (stored tokens, and
	// how a login is asked for); nil: none.
	MCPAuth func(*mcp.Options)
	// SaveRules adds an "always" answer's allow rules to the user profile
	// file; nil: the answer holds for the session only.
	SaveRules func(path string, rules ...schema.PolicyRule) error

	SessionID string
	Mode      string // --approval-mode; "" keeps the profile's
	// Verbose lists each value an unapproved workspace holds back among
	// the warnings; otherwise they are one line (HeldLine).
	Verbose bool
	// ApproveHook asks about an unapproved hook; nil skips such hooks with
	// a notice (non-interactive runs).
	ApproveHook func(context.Context, hooks.ApprovalRequest) (bool, error)
	OnExt       func(ext.Event)
	OnMCP       func(mcp.Event)
	// ElicitHeadless is what an MCP server's request for input gets when
	// nobody can answer (mcp.ElicitHeadlessDecline, the default, or
	// mcp.ElicitHeadlessDefaults: a form's defaults accepted).
	ElicitHeadless string
	// OnNotice receives what the runtime has to say mid-session (an
	// "always" answer saved to the profile, or why it was not).
	OnNotice func(string)
	// OnNotify receives notifications: what persistent hooks push (labelled
	// with their extension), ollm's word about them (a refused command),
	// and MCP servers' log messages at warning or above ("mcp:<server>").
	// It must not block for long.
	OnNotify func(hooks.Notification)
	// ReservedCommand reports the slash commands the face keeps (its own
	// and the skills); an extension cannot register them.
	ReservedCommand func(name string) bool
	// Bus is the confirmation bus to use; nil makes a new one.
	Bus *bus.Bus
	// ExtraDirs are directories beyond the workspace granted for this
	// session: absolute, existing, symlinks resolved (extra_dirs.go).
	ExtraDirs []string
	// Version is ollm's version, told to persistent hooks in their hello.
	Version string
	// MCPStopGrace is how long a stdio MCP server has between its stdin
	// closing and SIGTERM when the runtime closes; 0 keeps core/mcp's
	// default (1 s: a session's servers may save state on EOF). A
	// one-shot command (ollm run) sets at most 100 ms.
	MCPStopGrace time.Duration
	// StartCachedNow starts the stdio MCP servers whose tools the tool
	// cache holds at once, with the others (`ollm mcp serve`, which sends
	// no model request). Otherwise they start once the session's first
	// model request has gone out, or StartCachedAfter after New if no
	// request came sooner (0: DefaultStartCachedAfter; negative: only at
	// the request, for `ollm run`, whose request follows at once). A call
	// to one of their tools starts its server at once (firstrequest.go).
	StartCachedNow   bool
	StartCachedAfter time.Duration
}

// loaded is a profile loaded, gated and checked, before anything starts.
type loaded struct {
	g        *schema.Resolved
	held     schema.Trust
	trusted  bool // workspace servers may start
	pol      *policy.Policy
	provider llm.Provider
	model    schema.Model
	pending  []mcp.Spec
	warnings []string
}

// ConfigError is a profile, policy or model setting the runtime cannot run
// (exit status 2 in the CLI).
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// ErrCancelled: the context ended while the runtime was starting.
var ErrCancelled = errors.New("cancelled")

// New wires the runtime. Profile and policy errors are *ConfigErrors;
// errors of Options.Source are returned as they are.
func New(ctx context.Context, o Options) (*Runtime, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	home, ws := o.Home, o.Workspace
	rt := &Runtime{started: time.Now(), Home: home, Workspace: ws, SessionID: o.SessionID, Bus: o.Bus, Tools: tool.NewRegistry(),
		hookLog: &lazyLog{path: filepath.Join(home.Logs(), "hooks.log")},
		Skills:  skills.New(), opts: o, hreg: hooks.NewRegistry(),
		approved: map[string]*mcp.Manager{}, allowed: map[string]string{}, mcpOwners: map[string]bool{},
		live: map[*mcp.Manager]bool{}, editor: map[string]bool{}}
	if ws.Root != "" {
		rt.gitWatch = sandbox.NewGitWatch(ws.Root)
	}
	rt.newStartGate()
	if rt.Bus == nil {
		rt.Bus = bus.New(bus.Options{})
	}
	l, err := rt.load()
	if err != nil {
		return nil, err
	}
	rt.ctx, rt.cancel = context.WithCancel(context.Background())
	rt.extServers = &ext.MCPServers{Options: rt.extServerOptions(l.g), OnEvent: func(ev mcp.Event) {
		rt.cachedEvent(ev)
		if o.OnMCP != nil {
			o.OnMCP(ev)
		}
	}, Skills: rt.Skills, Background: true}
	rt.Ext = ext.New(l.g, ext.Options{StateFile: home.ExtensionState(), LogDir: home.Logs(), Home: home.Dir,
		Hooks: rt.hreg, Tools: rt.Tools, Skills: rt.Skills, Servers: rt.extServers,
		LookupEnv: LookupEnv(o.Getenv), OnEvent: o.OnExt})
	// Ready first, servers after: every MCP server starts once the runtime
	// is wired, in the background.
	rt.extServers.Hold()
	rt.holdServers = true
	rt.Warnings = append(rt.Warnings, rt.install(l)...)
	st := rt.Ext.Start(ctx)
	for _, e := range st.Errors {
		rt.Warnings = append(rt.Warnings, e.Error())
	}
	rt.Warnings = append(rt.Warnings, rt.settle()...)
	if ctx.Err() != nil {
		rt.Close()
		return nil, ErrCancelled
	}
	rt.holdServers = false
	rt.MCPManager().Start()
	rt.extServers.Release()
	return rt, nil
}

// load resolves the profile, gates the workspace, compiles the policy and
// builds the provider. It starts nothing, so a failed reload leaves the
// running runtime as it was.
func (rt *Runtime) load() (*loaded, error) {
	g, err := rt.opts.Source.Load()
	if err != nil {
		return nil, err
	}
	if err := rt.checkExtraDirs(g); err != nil {
		return nil, err
	}
	l := &loaded{g: g, held: g.Trust, trusted: g.Trust.Approved}
	held, rest := SplitHeld(g.Problems)
	if rt.opts.Verbose {
		if g.Trust.Gated && (len(g.Trust.Held) > 0 || len(g.Trust.HeldServers) > 0 || len(g.Trust.HeldExtensions) > 0) {
			l.warnings = append(l.warnings, "the workspace is not approved: what it brings that widens what runs is held back (listed below); run `ollm trust` to review it")
		}
		rest = g.Problems
	} else if len(held) > 0 {
		l.warnings = append(l.warnings, HeldLine(held, rt.Workspace.Root))
	}
	for _, p := range rest {
		l.warnings = append(l.warnings, ProblemText(p))
	}
	if l.pol, err = rt.compile(g, nil, nil); err != nil {
		return nil, err
	}
	rt.mu.RLock()
	override := rt.override
	rt.mu.RUnlock()
	if l.model, l.provider, err = rt.newProvider(g.Profile.Model, override); err != nil {
		return nil, err
	}
	if len(g.Trust.HeldServers) > 0 && g.Profile.MCP.Enabled {
		u, err := rt.opts.Source.LoadUngated()
		if err != nil {
			return nil, err
		}
		l.pending = heldServers(u, g.Trust.HeldServers)
	}
	return l, nil
}

// compile compiles the profile's policy plus extra rules (extensions'
// excluded commands, which only tighten) under --approval-mode.
func (rt *Runtime) compile(g *schema.Resolved, extra []schema.PolicyRule, scopes []schema.Scope) (*policy.Policy, error) {
	p := g.Profile.Policy
	p.Rules = append(append([]schema.PolicyRule(nil), p.Rules...), extra...)
	layers := make([]schema.Scope, len(g.Profile.Policy.Rules))
	copy(layers, g.RuleScopes)
	layers = append(layers, scopes...)
	pol, err := policy.Compile(p, policy.Options{Layers: layers})
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	if rt.opts.Mode != "" {
		m, err := policy.ParseMode(rt.opts.Mode)
		if err != nil {
			return nil, &ConfigError{Err: err}
		}
		pol = pol.WithMode(m)
	}
	return pol, nil
}

// newProvider builds the provider for the profile's model, or for the model
// named by /model (whose context window the profile does not know).
func (rt *Runtime) newProvider(model schema.Model, name string) (schema.Model, llm.Provider, error) {
	// The builtin profile spells out Ollama's default endpoint, which would
	// hide OLLAMA_HOST; Ollama's own variable wins over that default.
	if h := rt.opts.Getenv("OLLAMA_HOST"); h != "" && (model.Provider == "" || model.Provider == "ollama") &&
		(model.Endpoint == "" || model.Endpoint == llm.DefaultOllamaEndpoint) {
		model.Endpoint = ""
	}
	if name != "" && name != model.Name {
		model.Name, model.ContextWindow = name, 0
	}
	p, err := llm.New(model, llm.Config{Getenv: rt.opts.Getenv})
	if err != nil {
		return model, nil, &ConfigError{Err: err}
	}
	return model, p, nil
}

// heldServers are the workspace MCP servers the gate held back, as specs
// a per-server approval can start.
func heldServers(r *schema.Resolved, held []string) []mcp.Spec {
	var out []mcp.Spec
	for _, s := range mcp.Specs(r) {
		for _, name := range held {
			if s.Name == name && s.Extension == "" && s.Config.Enabled {
				s.Scope = schema.ScopeWorkspace
				out = append(out, s)
			}
		}
	}
	return out
}

// install puts a loaded profile in place: built-in tools, profile hooks in
// a new engine, base skills, the profile's MCP servers (started), the held
// workspace servers. It returns warnings.
func (rt *Runtime) install(l *loaded) []string {
	warnings := append([]string(nil), l.warnings...)
	g := l.g
	if rt.jobs == nil {
		rt.jobs = tools.NewJobs() // kept across reloads, killed by Close
	}
	cfg := tools.Config{Root: rt.Workspace.Root, ExtraDirs: append(slices.Clone(g.Profile.Tools.ExtraDirs), rt.opts.ExtraDirs...), Tools: g.Profile.Tools,
		Home: rt.Home, Workspace: rt.Workspace, HTTP: &http.Client{Timeout: 60 * time.Second}, Environ: sessionEnviron(rt.opts.Environ, g.Env), Getenv: rt.opts.Getenv,
		Jobs: rt.jobs, Sandbox: rt.shellPolicy(g), SandboxNow: func() *sandbox.Policy { return rt.shellPolicy(g) }, SandboxRequired: g.Profile.Sandbox.Required}
	cfg.Tools.Shell.AllowEnv = append(slices.Clone(cfg.Tools.Shell.AllowEnv), envNames(g.Env)...)
	builtin := tools.Builtin(cfg)
	names := make([]string, len(builtin))
	set := map[string]bool{}
	for i, t := range builtin {
		rt.Tools.Register(t)
		names[i] = t.Name()
		set[t.Name()] = true
	}
	rt.Tools.Register(skills.NewTool(rt.Skills)) // activate_skill: the model loads SKILL.md bodies on demand
	rt.builtinNames.Store(&set)

	// Profile hooks; extension hooks join through the extension manager,
	// which knows which extensions are enabled. The registry orders them
	// by source, whatever the order they arrive in.
	prof := *g
	prof.Extensions = nil
	reg, probs := hooks.FromResolved(&prof, hooks.BuildOptions{Home: rt.Home.Dir})
	for _, p := range probs {
		warnings = append(warnings, ProblemText(p))
	}
	for _, h := range reg.All() {
		rt.hreg.Register(h)
	}
	engine := hooks.New(rt.hreg, hooks.ProfileOptions(g.Profile.Hooks, hooks.Options{
		Session:         hooks.Session{ID: rt.SessionID, Cwd: rt.Workspace.Root, User: sessionUser(), Started: rt.started},
		Env:             g.Env,
		OnNotify:        rt.opts.OnNotify,
		ReservedCommand: rt.opts.ReservedCommand,
		Version:         rt.opts.Version,
		Model:           func() string { m, _ := rt.Model(); return m.Name },
		Provider:        func() string { m, _ := rt.Model(); return m.Provider },
		AskModel:        rt.askModel,
		LogDir:          rt.Home.Logs(),
		Approvals:       hooks.FileApprovals{Path: rt.Home.TrustedHooks()},
		Approve:         rt.opts.ApproveHook,
		Sandbox:         HookSandbox(rt.opts.Getenv, rt.Workspace.Root, g, rt.Home),
		GitWatch:        rt.gitWatch,
		// Failures and skips go to logs/hooks.log; the session shows them
		// as they happen (agent.EvHookFailure), async observers' here.
		Logger: slog.New(slog.NewTextHandler(rt.hookLog, nil)),
		OnAsync: func(r hooks.Result) {
			if r.Failure != "" && rt.opts.OnNotice != nil {
				f := agent.HookFailure{Hook: r.Hook, Event: string(r.Event), Kind: r.Failure, ExitCode: r.ExitCode,
					DurationMS: r.Duration.Milliseconds(), Detail: r.Error}
				rt.opts.OnNotice("async " + f.String())
			}
		},

		SandboxRequired: g.Profile.Sandbox.Required,
	}))

	home, _ := os.UserHomeDir()
	claudeDir := skills.ClaudeDir(rt.opts.Getenv, home)
	base, errs := skills.Base(g.Profile.Skills, SkillDirs(claudeDir, rt.Home.Skills(), rt.Workspace)...)
	for _, e := range errs {
		warnings = append(warnings, e.Error())
	}
	for _, e := range base.List() {
		_ = rt.Skills.Add(e.Skill)
	}
	// Gemini CLI's and Claude Code's own commands (~/.gemini/commands,
	// ~/.claude/commands, and the project's once the workspace is
	// approved); ollm's skills win on a name.
	gem, gwarn := skills.GeminiCommands(home, rt.Workspace.Root, l.trusted)
	warnings = append(warnings, gwarn...)
	rt.Skills.AddMissing(gem)
	cc, cwarn := skills.ClaudeCommands(claudeDir, rt.Workspace.Root, l.trusted)
	warnings = append(warnings, cwarn...)
	rt.Skills.AddMissing(cc)
	agentFiles, awarn := rt.readClaudeAgents()
	warnings = append(warnings, awarn...)

	// The profile's own servers; extensions' servers start with their
	// extension (ext.MCPServers), never here.
	rt.wsTrusted.Store(l.trusted)
	m := rt.newMCP(mcp.Specs(&prof), rt.serverOptions(g, nil))
	rt.mu.Lock()
	rt.resolved, rt.held, rt.engine, rt.mcp, rt.pol = g, l.held, engine, m, l.pol
	rt.live[m] = true
	rt.provider, rt.model, rt.builtin = l.provider, l.model, names
	rt.agentFiles = agentFiles
	rt.pending = map[string]mcp.Spec{}
	for _, s := range l.pending {
		rt.pending[s.Name] = s
	}
	rt.mu.Unlock()
	if !rt.holdServers {
		m.Start()
	}
	for _, s := range l.pending {
		warnings = append(warnings, fmt.Sprintf("workspace MCP server %s (%s) is not approved and was not started; approve it when the session asks, or review the workspace with `ollm trust`",
			s.Name, DescribeSpec(s)))
	}
	return warnings
}

// settle applies what the extensions decided (excluded commands). It
// waits for no MCP server: they start in the background, their tools and
// prompts join as each becomes ready (mcpEvent), and WaitServers waits for
// them when a caller needs them before its first prompt.
func (rt *Runtime) settle() []string {
	var warnings []string
	rules, scopes := rt.Ext.DenyRules()
	if len(rules) > 0 {
		g := rt.Resolved()
		if pol, err := rt.compile(g, rules, scopes); err == nil {
			rt.mu.Lock()
			rt.pol = pol
			rt.mu.Unlock()
		} else {
			warnings = append(warnings, fmt.Sprintf("extensions' excludeTools not applied: %v", err))
		}
	}
	return warnings
}

// WaitServers waits until every MCP server of the runtime (the profile's,
// the extensions' and those approved or started in this session, all at
// once) has finished its first connection attempt, loads the prompts of
// those ready as skills, and returns a warning for each that failed.
// /reload calls it; a first prompt calls WaitServersNotify (wait.go). The
// TUI does not wait, so nothing waits for a slow server there. The error
// is ctx's.
func (rt *Runtime) WaitServers(ctx context.Context) ([]string, error) {
	return rt.WaitServersNotify(ctx, nil)
}

// serverOptions are the options of a Manager for profile servers; approve
// decides workspace servers (nil: the workspace's approval).
func (rt *Runtime) serverOptions(g *schema.Resolved, approve func(mcp.Spec) bool) mcp.Options {
	o := rt.extServerOptions(g)
	o.Disabled = !g.Profile.MCP.Enabled
	if approve != nil {
		o.Approved = approve
	}
	return o
}

// extServerOptions are the MCP options every Manager of the runtime
// shares; workspace servers start once the workspace is trusted.
func (rt *Runtime) extServerOptions(g *schema.Resolved) mcp.Options {
	o := mcp.Options{LogDir: rt.Home.Logs(), Environ: rt.opts.Environ(), Reserved: rt.reserved,
		ProtocolCache: filepath.Join(rt.Home.Cache(), "mcp-protocols.json"), // known servers skip the discover probe
		Approved:      func(mcp.Spec) bool { return rt.wsTrusted.Load() }, StopGrace: rt.opts.MCPStopGrace,
		// Nothing waits (issue 29): every list a server gives is recorded,
		// and a first prompt offers the recorded tools of a stdio server
		// still connecting instead of waiting for it (core/mcp/early.go).
		ToolCache: filepath.Join(rt.Home.Cache(), "mcp-tools"), EarlyTools: true,
		// ...and does not start them before the first model request went
		// out (firstrequest.go).
		StartGate: rt.startGate}
	if rt.Workspace.Root != "" {
		o.Roots = []string{rt.Workspace.Root}
	}
	if t := g.Profile.MCP.ConnectionTimeout; t > 0 {
		o.ConnectionTimeout = time.Duration(t) * time.Millisecond
	}
	o.Sandbox = mcp.SandboxPolicy(g.Profile.Sandbox.MCP, rt.sandboxEnv(g))
	o.GitWatch = rt.gitWatch
	o.SandboxRequired = g.Profile.Sandbox.Required
	// OAuth: stored tokens are sent and refreshed; a login needs a terminal,
	// headless runs say to run `ollm mcp login <server>`.
	if rt.opts.MCPAuth != nil {
		rt.opts.MCPAuth(&o)
	}
	// Elicitation and sampling are asked through the confirmation bus.
	rt.mcpRequests(&o)
	if rt.opts.OnNotify != nil {
		o.OnLog = func(server, level, text string) {
			rt.opts.OnNotify(hooks.NewNotification("mcp:"+server, level, text, time.Now()))
		}
	}
	return o
}

// reserved reports the built-in tools' names, which MCP tools must not
// take (they are namespaced instead).
func (rt *Runtime) reserved(name string) bool {
	m := rt.builtinNames.Load()
	return m != nil && (*m)[name]
}

// newMCP prepares a Manager whose events reach OnMCP and keep the server's
// prompts in Skills once the runtime is live.
func (rt *Runtime) newMCP(specs []mcp.Spec, o mcp.Options) *mcp.Manager {
	var m *mcp.Manager
	o.OnEvent = func(ev mcp.Event) {
		rt.mcpEvent(m, ev)
		rt.cachedEvent(ev)
		if rt.opts.OnMCP != nil {
			rt.opts.OnMCP(ev)
		}
	}
	m = mcp.New(specs, o)
	return m
}

// mcpEvent follows a server's prompts: they become skills when it is
// ready (again) and go when it stops or fails.
func (rt *Runtime) mcpEvent(m *mcp.Manager, ev mcp.Event) {
	if rt.ctx == nil || rt.ctx.Err() != nil || m == nil {
		return
	}
	if ev.Status.State != mcp.StateReady {
		rt.mu.Lock()
		if rt.live[m] && rt.mcpOwners[ev.Server] {
			delete(rt.mcpOwners, ev.Server)
			rt.Skills.RemoveExtension(ev.Server)
		}
		rt.mu.Unlock()
		return
	}
	rt.background(func() { rt.addPrompts(rt.ctx, m) })
}

// background runs fn in a goroutine Close waits for; after Close it does
// nothing.
func (rt *Runtime) background(fn func()) {
	rt.bgMu.Lock()
	defer rt.bgMu.Unlock()
	if rt.closed {
		return
	}
	rt.wg.Add(1)
	go func() {
		defer rt.wg.Done()
		fn()
	}()
}

// addPrompts adds the prompts of m's ready servers to Skills as
// "server:prompt" and returns what failed.
func (rt *Runtime) addPrompts(ctx context.Context, m *mcp.Manager) []string {
	list, errs := m.Skills(ctx)
	var warnings []string
	for _, e := range errs {
		warnings = append(warnings, e.Error())
	}
	var servers []string
	for _, s := range m.Status() {
		servers = append(servers, s.Name)
	}
	// A manager torn down by a reload meanwhile must not bring its
	// prompts back.
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if !rt.live[m] {
		return warnings
	}
	for _, s := range list {
		sk, ok := promptSkill(servers, s)
		if !ok {
			continue
		}
		if err := rt.Skills.Add(sk); err != nil {
			warnings = append(warnings, fmt.Sprintf("MCP server %s: prompt %s: %v", sk.Extension, sk.Name, err))
			continue
		}
		rt.mcpOwners[sk.Extension] = true
	}
	return warnings
}

// promptSkill turns a "server:prompt" skill from core/mcp into a registry
// skill owned by the server.
func promptSkill(servers []string, s schema.Skill) (skills.Skill, bool) {
	for _, srv := range servers {
		if name, ok := strings.CutPrefix(s.Name, srv+":"); ok && name != "" {
			return skills.Skill{Name: skills.CommandName(name), Description: s.Description, Prompt: s.Prompt, Source: skills.SourceMCP, Extension: srv}, true
		}
	}
	return skills.Skill{}, false
}

// Resolved is the profile in force, after the workspace gate.
func (rt *Runtime) Resolved() *schema.Resolved {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.resolved
}

// Held is the workspace's trust state: what an unapproved workspace would
// have done.
func (rt *Runtime) Held() schema.Trust {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.held
}

// Policy is the policy in force.
func (rt *Runtime) Policy() *policy.Policy {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.pol
}

// Hooks is the hook engine in force.
func (rt *Runtime) Hooks() *hooks.Engine {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.engine
}

// MCPManager runs the profile's (and .mcp.json's) servers.
func (rt *Runtime) MCPManager() *mcp.Manager {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.mcp
}

// Model is the model requests go to and the provider serving it.
func (rt *Runtime) Model() (schema.Model, llm.Provider) {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.model, rt.provider
}

// MCPStatus lists the profile's servers, the ones approved in this session
// and the workspace servers waiting for approval, by name.
func (rt *Runtime) MCPStatus() []mcp.Status {
	rt.mu.RLock()
	out := rt.mcp.Status()
	for _, m := range rt.approved {
		out = append(out, m.Status()...)
	}
	for _, s := range rt.pending {
		out = append(out, mcp.Status{Name: s.Name, State: mcp.StateNeedsApproval, Transport: s.Transport(), Command: DescribeSpec(s),
			Scope: s.Scope, Error: "a workspace server: approve it in the session, or run `ollm trust`"})
	}
	rt.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PendingServers are the workspace MCP servers waiting for approval.
func (rt *Runtime) PendingServers() []mcp.Spec {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	out := make([]mcp.Spec, 0, len(rt.pending))
	for _, s := range rt.pending {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ApproveServer starts a workspace MCP server the user approved in this
// session and waits for its first connection attempt. The approval lasts
// for the session (a reload keeps it while the server's configuration is
// unchanged); `ollm trust` approves the workspace for good.
func (rt *Runtime) ApproveServer(ctx context.Context, name string) (mcp.Status, error) {
	m, err := rt.approveServer(name)
	if err != nil {
		return mcp.Status{}, err
	}
	if err := m.WaitReady(ctx); err != nil {
		return mcp.Status{}, err
	}
	rt.addPrompts(ctx, m)
	st := m.Status()
	if len(st) != 1 {
		return mcp.Status{}, fmt.Errorf("MCP server %s: no status", name)
	}
	if st[0].State == mcp.StateFailed {
		return st[0], fmt.Errorf("MCP server %s failed: %s", name, st[0].Error)
	}
	return st[0], nil
}

// ApproveServerInBackground is ApproveServer without the wait: the server
// starts, WaitServers waits for it with the others (a first prompt's
// notice names it if it hangs) and its tools join when it is ready.
func (rt *Runtime) ApproveServerInBackground(name string) error {
	_, err := rt.approveServer(name)
	return err
}

// approveServer starts a pending workspace server, approved for the
// session.
func (rt *Runtime) approveServer(name string) (*mcp.Manager, error) {
	rt.mu.Lock()
	s, ok := rt.pending[name]
	if !ok {
		rt.mu.Unlock()
		return nil, fmt.Errorf("no workspace MCP server %q is waiting for approval; /mcp lists the servers", name)
	}
	delete(rt.pending, name)
	rt.allowed[name] = specDigest(s)
	g := rt.resolved
	rt.mu.Unlock()
	m := rt.newMCP([]mcp.Spec{s}, rt.serverOptions(g, func(mcp.Spec) bool { return true }))
	rt.mu.Lock()
	rt.approved[name], rt.live[m] = m, true
	rt.mu.Unlock()
	m.Start()
	return m, nil
}

// specDigest identifies a server's configuration, so a session approval
// does not carry over to a changed server.
func specDigest(s mcp.Spec) string {
	b, _ := json.Marshal(s.Config)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// DescribeSpec is a server as the user configured it: its URL or command line.
func DescribeSpec(s mcp.Spec) string {
	if s.Config.URL != "" {
		return s.Config.URL
	}
	return strings.TrimSpace(s.Config.Command + " " + strings.Join(s.Config.Args, " "))
}

// PendingHooks are the hooks that would ask for approval when they first
// run: untrusted, not approved, or changed since. A session asks about
// them at its start.
func (rt *Runtime) PendingHooks() []hooks.ApprovalRequest {
	g := rt.Resolved()
	if !g.Profile.Hooks.Enabled {
		return nil
	}
	trust := g.Profile.Hooks.TrustWorkspace
	ap := hooks.FileApprovals{Path: rt.Home.TrustedHooks()}
	var out []hooks.ApprovalRequest
	for _, h := range rt.hreg.All() {
		if !hooks.NeedsApproval(h.Scope, trust) {
			continue
		}
		dir := h.Dir
		if dir == "" {
			dir = rt.Workspace.Root
		}
		hash, err := hooks.HookHash(h, dir, hooks.HashDir)
		if err != nil {
			continue // the engine reports it when the hook would run
		}
		stored, found, err := ap.LookupApproval(h.ID())
		if err != nil {
			continue
		}
		if st := hooks.DecideHook(h, trust, hash, stored, found); !st.Runs() {
			out = append(out, hooks.ApprovalRequest{Hook: h, ID: h.ID(), Hash: hash, Permissions: h.Permissions(), Command: hooks.CommandString(h), Changed: st == hooks.Changed})
		}
	}
	return out
}

// ApproveHook records the approval of a hook PendingHooks listed, as the
// engine does when it asks itself.
func (rt *Runtime) ApproveHook(req hooks.ApprovalRequest) error {
	ap := hooks.FileApprovals{Path: rt.Home.TrustedHooks(), By: "ollm session"}
	if err := ap.Record(req.ID, req.Approval()); err != nil {
		return fmt.Errorf("saving the approval of hook %s in %s: %w", req.ID, rt.Home.TrustedHooks(), err)
	}
	return nil
}

// SetModel switches the model for the rest of the session (/model NAME),
// also across reloads. The model must exist: its ModelInfo is asked first.
func (rt *Runtime) SetModel(ctx context.Context, name string) (schema.Model, llm.Provider, error) {
	g := rt.Resolved()
	model, p, err := rt.newProvider(g.Profile.Model, name)
	if err != nil {
		return model, nil, err
	}
	if _, err := p.ModelInfo(ctx, name); err != nil {
		return model, nil, err
	}
	rt.mu.Lock()
	rt.model, rt.provider, rt.override = model, p, name
	rt.mu.Unlock()
	return model, p, nil
}

// Configure points a session at what the runtime has now: the policy
// (this session's "always" answers stay) and the model.
func (rt *Runtime) Configure(s *agent.Session) {
	model, p := rt.Model()
	s.SetPolicy(rt.Policy())
	s.SetModel(p, model.Name, model.ContextWindow)
}

// AgentTools are the tools the model is offered: built-in and extension
// tools, then the ready MCP servers' tools, looked up live so a server that
// comes or goes mid-session (or a reload) is seen at the next turn. Tools
// an active extension excludes (excludeTools) are left out.
func (rt *Runtime) AgentTools() agent.Tools { return runtimeTools{rt} }

type runtimeTools struct{ rt *Runtime }

func (t runtimeTools) sources() []func() []tool.Tool {
	rt := t.rt
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	src := []func() []tool.Tool{rt.Tools.List, rt.mcp.Tools}
	names := make([]string, 0, len(rt.approved))
	for n := range rt.approved {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		src = append(src, rt.approved[n].Tools)
	}
	// Tools extensions' persistent hooks registered come last: List keeps
	// the first of a name, so they never take a built-in's or a server's.
	if rt.engine != nil {
		src = append(src, rt.engine.Tools)
	}
	return src
}

func (t runtimeTools) List() []tool.Tool {
	excluded := t.rt.Ext.Exclusions()
	var list []tool.Tool
	seen := map[string]bool{}
	for _, src := range t.sources() {
		for _, x := range src() {
			if _, out := excluded.Excluded(x.Name()); !seen[x.Name()] && !out {
				seen[x.Name()] = true
				list = append(list, x)
			}
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name() < list[j].Name() })
	return list
}

func (t runtimeTools) Get(name string) (tool.Tool, bool) {
	if _, out := t.rt.Ext.Exclusions().Excluded(name); out {
		return nil, false
	}
	if x, ok := t.rt.Tools.Get(name); ok {
		return x, true
	}
	rt := t.rt
	rt.mu.RLock()
	mgrs := []*mcp.Manager{rt.mcp}
	for _, m := range rt.approved {
		mgrs = append(mgrs, m)
	}
	rt.mu.RUnlock()
	for _, m := range mgrs {
		if x, ok := m.Lookup(name); ok {
			return x, true
		}
	}
	if e := rt.Hooks(); e != nil {
		if x, ok := e.Tool(name); ok {
			return x, true
		}
	}
	// An extension server's tool offered from the tool cache that the
	// server, now connected, does not list: the call is told so.
	return rt.extServers.LookupDropped(name)
}

// runtimeHooks is the session's view of the hook engine, which a reload
// replaces.
type runtimeHooks struct{ rt *Runtime }

func (h runtimeHooks) Emit(ctx context.Context, ev hooks.Event, data map[string]any) (hooks.Outcome, error) {
	return h.rt.Hooks().Emit(ctx, ev, data)
}

func (h runtimeHooks) Registry() *hooks.Registry { return h.rt.hreg }

// AgentConfig is the session configuration the runtime implies; the caller
// adds the transcript, history, events and limits. "Always" answers are
// saved to the user profile.
func (rt *Runtime) AgentConfig() agent.Config {
	model, p := rt.Model()
	g := rt.Resolved()
	system, sub := rt.systemPrompt()
	return agent.Config{
		Provider: rt.firstRequestOpens(p), Model: model.Name, Tools: rt.AgentTools(),
		Hooks: runtimeHooks{rt}, Policy: rt.Policy(), Bus: rt.Bus, SessionID: rt.SessionID, Cwd: rt.Workspace.Root,
		MaxTurns: g.Profile.Agent.MaxTurns, ContextWindow: model.ContextWindow,
		OnAlwaysAllow: rt.saveAlwaysAllow,
		System:        system,
		ToolContext:   sub,
		Subagents:     rt.subagents(),
	}
}

// saveAlwaysAllow adds an "always" answer's rules to the user profile.
func (rt *Runtime) saveAlwaysAllow(rules []schema.PolicyRule) {
	path := rt.Home.Profile()
	msg := fmt.Sprintf("saved %d allow rule(s) for %s to %s", len(rules), ruleTools(rules), path)
	save := rt.opts.SaveRules
	if save == nil {
		save = func(string, ...schema.PolicyRule) error { return errors.New("no profile to save it in") }
	}
	if err := save(path, rules...); err != nil {
		msg = fmt.Sprintf("the \"always\" answer holds for this session only: %v", err)
	}
	if rt.opts.OnNotice != nil {
		rt.opts.OnNotice(msg)
	}
}

func ruleTools(rules []schema.PolicyRule) string {
	var names []string
	for _, r := range rules {
		names = append(names, r.Tool)
	}
	return strings.Join(names, ", ")
}

// ReloadStats are the counts of a reload: extensions and MCP servers
// stopped, loaded, ready and failed (summed, and each on its own), what is
// registered afterwards, and every error.
type ReloadStats struct {
	Stopped, Loaded, Ready, Failed int
	Ext                            ext.Stats
	Servers                        ServerStats
	Hooks, Tools, Skills           int
	Pending                        []string // workspace servers waiting for approval
	Errors                         []string
}

// ServerStats counts the profile's MCP servers in a reload.
// Cached are the servers still starting whose tools are offered from the
// tool cache meanwhile (a call to one waits for it).
type ServerStats struct{ Stopped, Loaded, Ready, Failed, Cached int }

func (s ReloadStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "reloaded: stopped %d, loaded %d, ready %d, failed %d (extensions %d/%d/%d/%d, MCP servers %d/%d/%d/%d); %d hooks, %d tools, %d skills",
		s.Stopped, s.Loaded, s.Ready, s.Failed, s.Ext.Stopped, s.Ext.Loaded, s.Ext.Ready, s.Ext.Failed,
		s.Servers.Stopped, s.Servers.Loaded, s.Servers.Ready, s.Servers.Failed, s.Hooks, s.Tools, s.Skills)
	if s.Servers.Cached > 0 {
		fmt.Fprintf(&b, "\nstill starting, their tools offered from the tool cache: %d MCP server(s)", s.Servers.Cached)
	}
	if len(s.Pending) > 0 {
		fmt.Fprintf(&b, "\nwaiting for approval: %s", strings.Join(s.Pending, ", "))
	}
	for _, e := range s.Errors {
		fmt.Fprintf(&b, "\nerror: %s", e)
	}
	return b.String()
}

// Reload tears everything down and loads it again from the profile on
// disk without ending the session: the profile (through the loader),
// policy, provider, hooks, built-in tools, skills, the profile's MCP
// servers and the extensions (ext.Manager.Reload). A profile that does not
// load or compile is an error and leaves the runtime as it was. Workspace
// servers approved in this session start again when their configuration
// is unchanged. It must not run during a prompt; call Configure on the
// session afterwards.
func (rt *Runtime) Reload(ctx context.Context) (ReloadStats, error) {
	l, err := rt.load()
	if err != nil {
		return ReloadStats{}, err
	}
	var st ReloadStats
	st.Servers.Stopped = rt.teardown()
	warnings := rt.install(l)
	st.Ext = rt.Ext.Reload(ctx, l.g)
	warnings = append(warnings, rt.settle()...)
	warnings = append(warnings, rt.reapprove()...)
	// The stats report what is ready: a reload waits for the servers, all
	// at once, and names through OnNotice a server still connecting once
	// the others have settled, as a first prompt does.
	more, err := rt.WaitServersNotify(ctx, rt.opts.OnNotice)
	if err != nil {
		return st, err
	}
	warnings = append(warnings, more...)
	// Extension commands belong to persistent session_start hooks; the
	// session does not start again, so start them here.
	rt.Hooks().StartPersistent(ctx)
	rt.count(&st)
	for _, e := range st.Ext.Errors {
		st.Errors = append(st.Errors, e.Error())
	}
	st.Errors = append(st.Errors, warnings...)
	return st, nil
}

// teardown stops what install started and empties the registries of what
// the profile put there (the extension manager clears its own). It
// returns how many MCP servers were running.
func (rt *Runtime) teardown() int {
	rt.mu.Lock()
	old, engine, approved, builtin := rt.mcp, rt.engine, rt.approved, rt.builtin
	owners := rt.mcpOwners
	rt.approved, rt.editor, rt.mcpOwners, rt.live = map[string]*mcp.Manager{}, map[string]bool{}, map[string]bool{}, map[*mcp.Manager]bool{}
	for o := range owners {
		rt.Skills.RemoveExtension(o)
	}
	rt.mu.Unlock()
	stopped := 0
	for _, m := range append([]*mcp.Manager{old}, mapValues(approved)...) {
		for _, s := range m.Status() {
			if s.State == mcp.StateReady || s.State == mcp.StateConnecting {
				stopped++
			}
		}
		_ = m.Close()
	}
	_ = engine.Close()
	rt.hreg.Clear()
	for _, n := range builtin {
		rt.Tools.Unregister(n)
	}
	rt.Skills.RemoveExtension("")
	return stopped
}

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// reapprove starts the workspace servers approved earlier in this session
// whose configuration has not changed.
func (rt *Runtime) reapprove() []string {
	var warnings []string
	for _, s := range rt.PendingServers() {
		rt.mu.RLock()
		ok := rt.allowed[s.Name] == specDigest(s)
		rt.mu.RUnlock()
		if !ok {
			continue
		}
		if err := rt.ApproveServerInBackground(s.Name); err != nil {
			warnings = append(warnings, err.Error())
		}
	}
	return warnings
}

// count fills the sums and what is registered after a reload.
func (rt *Runtime) count(st *ReloadStats) {
	for _, s := range rt.MCPStatus() {
		switch s.State {
		case mcp.StateReady:
			st.Servers.Ready++
		case mcp.StateFailed:
			st.Servers.Failed++
		case mcp.StateConnecting:
			if s.Cached {
				st.Servers.Cached++
			}
		case mcp.StateNeedsApproval:
			st.Pending = append(st.Pending, s.Name)
		}
		st.Servers.Loaded++
	}
	st.Stopped = st.Ext.Stopped + st.Servers.Stopped
	st.Loaded = st.Ext.Loaded + st.Servers.Loaded
	st.Ready = st.Ext.Ready + st.Servers.Ready
	st.Failed = st.Ext.Failed + st.Servers.Failed
	st.Hooks = len(rt.hreg.All())
	st.Tools = len(rt.AgentTools().List())
	st.Skills = len(rt.Skills.List())
}

// Close stops everything the runtime started.
func (rt *Runtime) Close() error {
	defer rt.gitWatch.Close()
	if rt.startTimer != nil {
		rt.startTimer.Stop()
	}
	rt.bgMu.Lock()
	rt.closed = true
	rt.bgMu.Unlock()
	if rt.cancel != nil {
		rt.cancel()
	}
	var errs []error
	if rt.Ext != nil {
		_, err := rt.Ext.Close()
		errs = append(errs, err)
	}
	rt.mu.Lock()
	mgrs := append([]*mcp.Manager{rt.mcp}, mapValues(rt.approved)...)
	engine := rt.engine
	rt.mu.Unlock()
	for _, m := range mgrs {
		if m != nil {
			errs = append(errs, m.Close())
		}
	}
	rt.wg.Wait()
	if engine != nil {
		errs = append(errs, engine.Close())
	}
	if rt.jobs != nil {
		rt.jobs.KillAll() // background shell jobs end with the session
	}
	errs = append(errs, rt.hookLog.Close())
	return errors.Join(errs...)
}

// heldPrefix starts the message of every problem that reports a value of
// an unapproved workspace held back (profiles' trust gate).
const heldPrefix = "workspace not approved:"

// IsHeld reports whether p reports a value an unapproved workspace holds
// back.
func IsHeld(p schema.Problem) bool { return strings.HasPrefix(p.Message, heldPrefix) }

// SplitHeld separates the problems that report held-back values from the
// others, keeping their order.
func SplitHeld(ps []schema.Problem) (held, rest []schema.Problem) {
	for _, p := range ps {
		if IsHeld(p) {
			held = append(held, p)
		} else {
			rest = append(rest, p)
		}
	}
	return held, rest
}

// HeldLine is what an unapproved workspace holds back, on one line: how
// many values, the files (relative to the workspace root) and extensions
// they come from, the command that approves them and the flag that lists
// them.
func HeldLine(held []schema.Problem, root string) string {
	n := 0
	var from []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			from = append(from, s)
		}
	}
	for _, p := range held {
		_, names, ok := strings.Cut(p.Message, "servers held back: ")
		if ok && !strings.Contains(names, "(") {
			n += len(strings.Split(names, ", ")) // .mcp.json: one problem names every server
		} else {
			n++
		}
		if p.Extension != "" {
			add("extension " + p.Extension)
			continue
		}
		file := p.File
		if file == "" {
			file, _, _ = strings.Cut(p.Pos, ":")
		}
		if rel, err := filepath.Rel(root, file); err == nil && root != "" && !strings.HasPrefix(rel, "..") {
			file = rel
		}
		add(file)
	}
	what := "values"
	if n == 1 {
		what = "value"
	}
	return fmt.Sprintf("%s %d %s held back (%s): `ollm trust` reviews and approves them; -v lists them", heldPrefix, n, what, strings.Join(from, ", "))
}

// ProblemText is a problem on one line: position, message and fix.
func ProblemText(p schema.Problem) string {
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

// LookupEnv adapts a getenv to a lookup in which an empty variable counts
// as unset, as extension settings read them.
func LookupEnv(getenv func(string) string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	}
}

// SandboxEnv is where the sandbox policies of a workspace are resolved:
// the workspace, $OLLM_HOME, the user's home and the profile's denyRead.
func SandboxEnv(getenv func(string) string, root string, r *schema.Resolved, home store.Home) sandbox.Env {
	if getenv == nil {
		getenv = os.Getenv
	}
	userHome := getenv("HOME")
	if userHome == "" {
		userHome, _ = os.UserHomeDir()
	}
	return sandbox.Env{Workspace: root, OllmHome: home.Dir, Home: userHome, Getenv: getenv, DenyRead: r.Profile.Sandbox.DenyRead, AllowRead: r.Profile.Sandbox.AllowRead}
}

// HookSandbox is the sandbox policy of each hook: the workspace's own
// hooks run under the whole profile's sandbox block, every other hook
// (builtin, user, the user's extensions) under the trusted layers' alone
// (Resolved.HookSandbox), so a workspace's denyRead or sandbox.hooks
// cannot make a guard of the user fail and let the call it guards through.
func HookSandbox(getenv func(string) string, root string, r *schema.Resolved, home store.Home) func(*hooks.Hook) (sandbox.Policy, error) {
	ws := hooks.SandboxPolicy(r.Profile.Sandbox.Hooks, SandboxEnv(getenv, root, r, home))
	if r.TrustedSandbox == nil {
		return ws
	}
	env := SandboxEnv(getenv, root, r, home)
	env.DenyRead = r.TrustedSandbox.DenyRead
	own := hooks.SandboxPolicy(r.TrustedSandbox.Hooks, env)
	return func(h *hooks.Hook) (sandbox.Policy, error) {
		if h.Scope == schema.ScopeWorkspace {
			return ws(h)
		}
		return own(h)
	}
}

func (rt *Runtime) sandboxEnv(g *schema.Resolved) sandbox.Env {
	return SandboxEnv(rt.opts.Getenv, rt.Workspace.Root, g, rt.Home)
}

// shellPolicy is the shell tool's sandbox under the profile.
func (rt *Runtime) shellPolicy(g *schema.Resolved) *sandbox.Policy {
	env := rt.sandboxEnv(g)
	p := rt.extraShell(g.Profile.Sandbox.Shell, env, sandbox.Resolve(g.Profile.Sandbox.Shell, sandbox.ShellDefault, env))
	return &p
}

// lazyLog is an append-only log file created (0600, in a 0700 directory)
// on its first write, so a session whose hooks never fail leaves none.
type lazyLog struct {
	path string
	mu   sync.Mutex
	f    *os.File
	err  error
}

func (l *lazyLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.err == nil {
		if l.err = os.MkdirAll(filepath.Dir(l.path), 0o700); l.err == nil {
			l.f, l.err = os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		}
	}
	if l.err != nil {
		return len(p), nil // a log that cannot be written must not stop a hook
	}
	return l.f.Write(p)
}

func (l *lazyLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// sessionUser is the login name hooks see as session.user.
func sessionUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}
