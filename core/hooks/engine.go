package hooks

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/internal/secrets"
	"github.com/ollm/ollm/schema"
)

// Options configure an Engine. The zero value runs nothing: set Enabled.
type Options struct {
	Enabled        bool          // hooks.enabled
	Timeout        time.Duration // hooks.timeout: default for hooks without their own
	TrustWorkspace bool          // hooks.trustWorkspace, honoured from user profile or flag only
	Session        Session       // session id and working directory
	LogDir         string        // where stderr logs go (store.Home.Logs()); "" discards
	MaxOutput      int           // stdout cap per run; 0 means DefaultMaxOutput
	// MaxMemory and MaxFileSize bound each hook process (bytes; 0: no
	// bound): RLIMIT_DATA, what it may allocate, and RLIMIT_FSIZE, the
	// largest file it may write (hooks.maxMemoryMB, hooks.maxFileSizeMB).
	MaxMemory, MaxFileSize int64
	// AllowEnv (hooks.allowEnv) names variables of ollm's environment,
	// exact or globs, every hook is given besides sandbox.BaseEnv.
	AllowEnv []string
	// Env is set for every hook besides (Claude Code settings' env).
	Env   map[string]string
	Grace time.Duration // SIGTERM to SIGKILL; 0 means KillGrace

	// Approvals is the persistent approval record; nil approves nothing.
	Approvals Approvals
	// Approve asks the user about an unapproved or changed hook. nil
	// means there is no one to ask: such hooks are skipped with a notice.
	Approve func(context.Context, ApprovalRequest) (bool, error)
	// OnAsync receives the result of each async observer.
	OnAsync func(Result)

	Logger *slog.Logger
	Now    func() time.Time
	// Persistent tunes persistent hooks; zero values take defaults.
	Persistent PersistentOptions

	// Sandbox gives the policy a hook's process runs under (sandbox.Resolve
	// of its declared sandbox, its extension's permissions or the profile's
	// sandbox.hooks); it is asked at each process start. nil runs every
	// hook unsandboxed. An error keeps the hook from starting. An
	// extension hook's own directory is always added to what it may read.
	Sandbox func(h *Hook) (sandbox.Policy, error)
	// GitWatch, when set, holds a git repository a hook creates in the
	// workspace while it runs (the sandbox cannot stop one being made, and
	// git would run its config and hooks outside); each is a notice.
	GitWatch *sandbox.GitWatch
	// OnNotify receives what persistent hooks push to the user
	// (notifications labelled with their source) and ollm's own word about
	// them (a refused command registration, source "ollm"). It is called
	// from the hook's reader and must not block for long.
	OnNotify func(Notification)
	// ReservedCommand reports the slash commands ollm keeps for itself; an
	// extension cannot register them.
	ReservedCommand func(name string) bool

	// Version is ollm's version and Model names the model the session
	// talks to now; a persistent hook's hello carries both (seed 002's
	// hello_ack). A nil Model sends "".
	Version string
	Model   func() string
	// Provider names the kind of model server ("ollama", "openai") the
	// session talks to; nil sends "".
	Provider func() string

	// AskModel sends one request to the session's model (a system
	// prompt and a user message) and returns the reply's text: what
	// prompt hooks are evaluated with. nil: prompt hooks fail to start.
	AskModel func(ctx context.Context, system, user string) (string, error)

	// SandboxRequired (sandbox.required): when the machine cannot sandbox,
	// a hook fails to start (a failClosed hook blocks) instead of running
	// unsandboxed with one warning per engine.
	SandboxRequired bool
}

// Approvals stores hook approvals by stable id. One that is also a
// PermissionApprovals keeps the permissions each approval covers.
type Approvals interface {
	Lookup(id string) (hash string, ok bool, err error)
	Approve(id, hash string) error
}

// ApprovalRequest is what the user is asked to approve.
type ApprovalRequest struct {
	Hook        *Hook
	ID          string
	Hash        string
	Permissions *schema.Sandbox // what the hook declares; nil: the defaults
	Command     string          // the command line, for display
	Changed     bool            // it was approved before with another hash or narrower permissions
}

// Result reports one hook's part in an event.
type Result struct {
	Hook      string        `json:"hook"` // qualified name
	Event     Event         `json:"event"`
	Scope     schema.Scope  `json:"scope"`
	Duration  time.Duration `json:"duration"`
	ExitCode  int           `json:"exitCode"`
	Failure   string        `json:"failure,omitempty"`
	Error     string        `json:"error,omitempty"`
	Truncated bool          `json:"truncated,omitempty"`
	Skipped   string        `json:"skipped,omitempty"` // why it did not run
	// FailClosed: the hook is failClosed, so a failure blocked the
	// operation (Blocked is set too).
	FailClosed bool   `json:"failClosed,omitempty"`
	Async      bool   `json:"async,omitempty"`
	Blocked    bool   `json:"blocked,omitempty"`
	Message    string `json:"message,omitempty"` // its system message
	// Held are the repositories it created, moved aside (GitWatch).
	Held []string `json:"held,omitempty"`
}

// Outcome is the folded answer of every hook of one event.
type Outcome struct {
	Event          Event          `json:"event"`
	Blocked        bool           `json:"blocked"`
	Reason         string         `json:"reason,omitempty"`
	BlockedBy      string         `json:"blockedBy,omitempty"`
	SystemMessages []string       `json:"systemMessages,omitempty"`
	Data           map[string]any `json:"data"`            // the event data with rewrites folded in
	Extra          map[string]any `json:"extra,omitempty"` // unknown output fields
	Notices        []string       `json:"notices,omitempty"`
	Results        []Result       `json:"results"`
}

// SystemMessage joins the system messages in execution order.
func (o Outcome) SystemMessage() string {
	f := Fold{Messages: o.SystemMessages}
	return f.SystemMessage()
}

// Engine runs the hooks of a registry for events.
type Engine struct {
	reg  *Registry
	opts Options
	// parentEnv is ollm's environment: what ${VAR} in a hook's env reads.
	parentEnv []string
	// baseEnv is what every hook gets of it (sandbox.Environ, with
	// Options.AllowEnv).
	baseEnv []string
	// baseSecrets are the values of secret-looking variables of parentEnv.
	baseSecrets []string
	ctx         context.Context // lives until Close; async and persistent hooks use it
	cancel      context.CancelFunc
	async       sync.WaitGroup

	mu       sync.Mutex
	approved map[string]Approval // id -> approved in this process
	dirHash  map[string]string   // extension dir -> h1 hash
	procs    map[string]*persistentProc
	commands map[string]*Command // slash commands persistent hooks registered
	tools    map[string]*ExtTool // tools extensions' persistent hooks registered

	wrap        func(*exec.Cmd, sandbox.Policy) error // sandbox.Wrap; tests swap it
	unsandboxed sync.Once                             // the one warning when hooks run without a sandbox
}

// New returns an engine running the hooks of reg.
func New(reg *Registry, opts Options) *Engine {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.Grace <= 0 {
		opts.Grace = KillGrace
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.Persistent = opts.Persistent.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	env, allow := withSessionEnv(os.Environ(), opts.AllowEnv, opts.Env)
	return &Engine{
		reg: reg, opts: opts, parentEnv: env, baseEnv: sandbox.ApprovedEnviron(env, allow), baseSecrets: secrets.FromEnv(env),
		ctx: ctx, cancel: cancel,
		approved: map[string]Approval{}, dirHash: map[string]string{}, procs: map[string]*persistentProc{},
		commands: map[string]*Command{}, tools: map[string]*ExtTool{},
		wrap: sandbox.Wrap,
	}
}

// Registry returns the engine's registry.
func (e *Engine) Registry() *Registry { return e.reg }

// Emit runs the hooks of event ev on data, in registration order, and
// folds their answers. data is not changed. The error is non-nil only
// when ctx ends; hook failures are results, not errors.
func (e *Engine) Emit(ctx context.Context, ev Event, data map[string]any) (Outcome, error) {
	f := NewFold(data)
	out := Outcome{Event: ev}
	if e.opts.Enabled {
		if _, ok := f.Data["session_id"]; !ok && e.opts.Session.ID != "" {
			f.Data["session_id"] = e.opts.Session.ID
		}
		for _, h := range Plan(e.reg, ev, f.Data) {
			if !ifMatches(h, ev, f.Data, e.opts.Session.Cwd) {
				continue // its `if` does not match the call: no process
			}
			if err := ctx.Err(); err != nil {
				return e.finish(out, f), err
			}
			res, stop := e.step(ctx, h, ev, f)
			out.Results = append(out.Results, res)
			if res.Skipped != "" {
				out.Notices = append(out.Notices, res.Skipped)
			}
			for _, h := range res.Held {
				out.Notices = append(out.Notices, "hook "+res.Hook+": "+h)
			}
			if stop {
				break
			}
		}
	}
	return e.finish(out, f), nil
}

func (e *Engine) finish(out Outcome, f *Fold) Outcome {
	out.Blocked, out.Reason, out.BlockedBy = f.Blocked, f.Reason, f.BlockedBy
	out.SystemMessages, out.Data, out.Extra = f.Messages, f.Data, f.Extra
	out.Notices = append(out.Notices, f.Notices...)
	return out
}

// step runs one hook and folds its verdict.
func (e *Engine) step(ctx context.Context, h *Hook, ev Event, f *Fold) (Result, bool) {
	res := Result{Hook: h.QualifiedName(), Event: ev, Scope: h.Scope}
	if ok, why := e.allowed(ctx, h); !ok {
		res.Skipped = why
		e.opts.Logger.Warn("hook skipped", "hook", res.Hook, "event", ev, "reason", why)
		return res, false
	}
	if h.Def.Async {
		res.Async = true
		e.startAsync(h, ev, maps.Clone(f.Data), maps.Clone(f.Extra))
		return res, false
	}
	v := e.run(ctx, h, ev, f.Data, f.Extra, &res)
	stop := f.Apply(res.Hook, h.Def.FailClosed, v)
	res.Blocked = stop
	return res, stop
}

// run executes h once and interprets its output, filling res.
func (e *Engine) run(ctx context.Context, h *Hook, ev Event, data, extra map[string]any, res *Result) Verdict {
	start := time.Now()
	var out RunOutput
	sess := e.claudeTranscript(h, sessionFor(ctx, e.opts.Session))
	input, err := BuildInput(h, ev, data, extra, sess, e.opts.Now(), 0)
	if err != nil {
		out = RunOutput{ExitCode: -1, Err: fmt.Errorf("encode input: %w", err)}
	} else {
		e.opts.GitWatch.Begin()
		switch {
		case h.Def.Prompt != "":
			out = e.runPrompt(ctx, h, input)
		case h.Def.Persistent:
			out = e.runPersistent(ctx, h, ev, data, extra)
		default:
			out = e.runOnce(ctx, h, ev, input, sess.claudeTranscript)
		}
		for _, held := range e.opts.GitWatch.End() {
			res.Held = append(res.Held, held.String())
			e.opts.Logger.Warn("hook created a git repository", "hook", res.Hook, "event", ev, "held", held.String())
		}
	}
	v := Interpret(h.Dialect(), ev, out)
	if h.Dialect() == DialectClaude && (ev == BeforeTool || ev == OnApprovalRequest) {
		if args, ok := v.Data["args"].(map[string]any); ok {
			tool, _ := data["tool_name"].(string)
			v.Data["args"] = claudeArgs(tool, args, false) // updatedInput uses Claude's keys
		}
	}
	if h.Dialect() == DialectGemini {
		v = geminiVerdict(ev, data, v) // Gemini's tool names and argument keys
	}
	v = e.redactVerdict(h, v)
	res.Duration, res.ExitCode, res.Truncated = time.Since(start), out.ExitCode, out.Truncated
	res.Failure, res.Error, res.Message = v.Failure, v.Detail, v.SystemMessage
	if v.Failure != "" {
		res.FailClosed = h.Def.FailClosed
		e.opts.Logger.Warn("hook failed", "hook", res.Hook, "extension", h.Extension, "event", ev,
			"failure", v.Failure, "exit", out.ExitCode, "duration", res.Duration.Round(time.Millisecond),
			"detail", v.Detail, "failClosed", h.Def.FailClosed)
	}
	return v
}

// runOnce starts the hook's process for one event.
func (e *Engine) runOnce(ctx context.Context, h *Hook, ev Event, input []byte, transcript string) RunOutput {
	log, closeLog := e.openLog(h, ev)
	defer closeLog()
	dir := e.dir(h)
	path, args := commandLine(h, dir)
	if h.Def.Shell != "" {
		var err error
		if path, args, err = shellLine(h); err != nil {
			return RunOutput{ExitCode: -1, StartErr: err}
		}
	}
	return runProcess(ctx, runSpec{
		Path: path, Args: args, Dir: dir, Env: e.env(h, ev), Stdin: input,
		Timeout: h.timeout(e.opts.Timeout), Grace: e.opts.Grace, MaxStdout: e.opts.MaxOutput, Log: log,
		Confine: e.confiner(h, nonEmpty(transcript)...), MaxData: e.opts.MaxMemory, MaxFileSize: e.opts.MaxFileSize,
	})
}

// startAsync runs an observer in the background; its output is not folded.
func (e *Engine) startAsync(h *Hook, ev Event, data, extra map[string]any) {
	e.async.Add(1)
	go func() {
		defer e.async.Done()
		res := Result{Hook: h.QualifiedName(), Event: ev, Scope: h.Scope, Async: true}
		e.run(e.ctx, h, ev, data, extra, &res)
		if e.opts.OnAsync != nil {
			e.opts.OnAsync(res)
		}
	}()
}

// Wait blocks until every async observer started so far has finished.
func (e *Engine) Wait() { e.async.Wait() }

// Close stops persistent hooks cleanly, waits for async observers (which
// are killed if still running) and releases the engine.
func (e *Engine) Close() error {
	e.mu.Lock()
	procs := e.procs
	e.procs = map[string]*persistentProc{}
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); p.shutdown() }()
	}
	wg.Wait()
	e.cancel()
	e.async.Wait()
	return nil
}

func (e *Engine) dir(h *Hook) string {
	if h.Dir != "" && !h.InProject {
		return h.Dir
	}
	return e.opts.Session.Cwd
}

// env is the hook's environment: ollm's own, then variables describing
// the event, then the extension's settings, then the hook's env.
func (e *Engine) env(h *Hook, ev Event) []string {
	env := append([]string(nil), e.baseEnv...)
	cwd := e.opts.Session.Cwd
	env = append(env, "OLLM_HOOK_EVENT="+string(ev), "OLLM_HOOK_NAME="+h.Name,
		"OLLM_SESSION_ID="+e.opts.Session.ID, "OLLM_PROJECT_DIR="+cwd)
	if h.Extension != "" {
		env = append(env, "OLLM_EXTENSION="+h.Extension, "OLLM_EXTENSION_DIR="+h.Dir)
		if d := sandbox.ExtensionData(cwd, h.Extension); d != "" {
			env = append(env, "OLLM_EXTENSION_DATA="+d)
		}
	}
	switch h.Dialect() {
	case DialectClaude:
		env = append(env, "CLAUDE_PROJECT_DIR="+cwd)
	case DialectGemini:
		env = append(env, "GEMINI_PROJECT_DIR="+cwd)
	}
	for k, v := range h.Env {
		env = append(env, k+"="+v)
	}
	return append(env, e.declaredEnv(h, true)...)
}

// declaredEnv is the hook's own env, each ${VAR} and ${VAR:-default} taken
// from its extension's settings, else from ollm's environment: the way a
// hook is given a variable that sandbox.Environ keeps back. warn logs
// each variable that is not set.
func (e *Engine) declaredEnv(h *Hook, warn bool) []string {
	if len(h.Def.Env) == 0 {
		return nil
	}
	lookup := func(name string) (string, bool) {
		if v, ok := h.Env[name]; ok {
			return v, true
		}
		for i := len(e.parentEnv) - 1; i >= 0; i-- {
			if k, v, _ := strings.Cut(e.parentEnv[i], "="); k == name {
				return v, true
			}
		}
		return "", false
	}
	out := make([]string, 0, len(h.Def.Env))
	for _, k := range slices.Sorted(maps.Keys(h.Def.Env)) {
		v, missing := sandbox.Expand(h.Def.Env[k], lookup)
		for _, m := range missing {
			if !warn {
				break
			}
			e.opts.Logger.Warn("hook env: variable not set; using an empty string", "hook", h.QualifiedName(), "env", k, "variable", m)
		}
		out = append(out, k+"="+v)
	}
	return out
}
