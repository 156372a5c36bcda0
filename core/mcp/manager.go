package mcp

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// Options configure a Manager. Zero values mean the defaults.
type Options struct {
	Disabled          bool          // mcp.enabled: false: start nothing
	ConnectionTimeout time.Duration // mcp.connectionTimeout; default DefaultConnectionTimeout
	CallTimeout       time.Duration // for servers without a timeout; default 60s
	LogDir            string        // store.Home.Logs(); "" keeps no log files
	Environ           []string      // the parent environment; default os.Environ()
	Roots             []string      // workspace directories reported as roots
	// Reserved reports names that built-in tools already use, so MCP tools
	// of the same name are namespaced.
	Reserved func(name string) bool
	// Approved reports whether the user approved a server that needs it
	// (workspace servers); nil approves none.
	Approved func(Spec) bool
	Elicit   Elicitor // nil declines every elicitation
	Sample   Sampler  // nil offers no sampling
	// OnEvent is told about every status change and tool-set change. It is
	// called from the Manager's goroutines, one event at a time; it must
	// not block for long or call back into the Manager's Close.
	OnEvent         func(Event)
	Restart         Backoff
	MaxMessageBytes int
	MaxResultBytes  int
	MaxLogBytes     int64
	HTTPClient      *http.Client
	// TokenDir holds OAuth tokens (store.Home.Tokens()); "" sends none.
	// HTTP servers get their stored token, refreshed when it expires or
	// the server answers 401.
	TokenDir string
	// OpenURL shows the user an authorization page when an HTTP server
	// needs an OAuth login (see Login); nil (no terminal) fails the server
	// with an error that says to run `ollm mcp login <server>`.
	OpenURL      func(url string) error
	LoginTimeout time.Duration // waiting for the browser; default DefaultLoginTimeout
	// LegacyHandshake skips the server/discover probe and speaks the
	// initialize handshake straight away.
	LegacyHandshake bool
	// ProtocolCache is a JSON file that remembers the protocol revision
	// each server answered with, so a server known to speak the
	// initialize handshake is not probed with server/discover again
	// (protocol.go). "" probes every server at every connection.
	ProtocolCache string
	// StopGrace is how long a stdio server has to exit after its stdin is
	// closed before it gets SIGTERM (then 2 s more before SIGKILL);
	// default DefaultStopGrace. One-shot commands use at most 100 ms.
	StopGrace time.Duration
	// ToolCache is a directory that remembers each server's tools/list
	// (toolcache.go): every list a Manager takes is recorded there. ""
	// keeps none.
	ToolCache string
	// UseToolCache: a server whose entry in ToolCache matches what it says
	// in initialize (name, version, protocol) is not asked for tools/list;
	// its tools come from the entry (`ollm mcp call`, which then needs
	// one round trip less). The server still validates every call, and
	// Relist asks it for the list when the entry falls short.
	UseToolCache bool
	// EarlyTools (sessions): a stdio server still in its first connection
	// offers the tools its ToolCache entry lists meanwhile, and WaitReady
	// does not wait for it; a call to one of them waits for that server
	// and is checked against its own list (early.go).
	EarlyTools bool
	// StartGate (sessions, with EarlyTools): a stdio server whose tools
	// the tool cache offers does not start before the gate opens, unless
	// a call to one of its tools needs it sooner (deferstart.go). nil
	// starts every server at Start.
	StartGate *StartGate
	// Snapshot: the Manager serves a command that takes the servers' tools
	// as they are at connect and exits (`ollm mcp list|tools|call`), so
	// notifications/tools/list_changed do not start another tools/list
	// (server-everything sends three right after initialize; re-listing
	// costs each node server 5-20 ms of CPU while the others start).
	Snapshot bool
	// StopWhenReady: the command needs each server's status and tools
	// only (`ollm mcp list`, `ollm mcp tools`), so a server is stopped as
	// soon as it is ready, while the others still start, rather than all
	// together at Close. It keeps the status it reached (ready, with its
	// tools); calling its tools fails as for a stopped server.
	StopWhenReady bool
	// Only, when not empty, names the servers to run: the others are
	// neither started nor listed, so a command about one server does not
	// wait for the rest.
	Only          []string
	ClientVersion string

	// Sandbox gives the policy a stdio server's process runs under
	// (SandboxPolicy builds the usual one); it is asked at each start,
	// restarts included. nil runs every server unsandboxed. An error
	// fails the server. An extension server's own directory is always
	// added to what it may read.
	Sandbox func(Spec) (sandbox.Policy, error)
	// GitWatch, when set, holds a git repository a stdio server creates
	// in the workspace during a tool call (the sandbox cannot stop one
	// being made, and git would run its config and hooks outside); the
	// call's result says so.
	GitWatch *sandbox.GitWatch
	// SandboxRequired (sandbox.required): when the machine cannot sandbox,
	// a stdio server fails to start instead of running unsandboxed with a
	// warning in its status and its log.
	SandboxRequired bool
	// wrap is sandbox.Wrap; tests swap it.
	wrap func(*exec.Cmd, sandbox.Policy) error
	// OnLog is told about every notifications/message at level warning or
	// above (warning, error, critical, alert, emergency): server, level
	// and the message text. Every level also goes to the server's log.
	OnLog func(server, level, message string)
}

// DefaultConnectionTimeout is mcp.connectionTimeout's default: how long a
// server has to start, initialize and list its tools.
const DefaultConnectionTimeout = 30 * time.Second

// Backoff is the restart policy for stdio servers that exit or crash
// after they were ready: Max restarts, waiting Base, 2*Base, ... up to
// MaxDelay. A server that stays up for a minute earns its restarts back.
type Backoff struct {
	Max      int           // default 5; negative disables restarts
	Base     time.Duration // default 500ms
	MaxDelay time.Duration // default 30s
}

func (o *Options) connTimeout() time.Duration {
	return orDuration(o.ConnectionTimeout, DefaultConnectionTimeout)
}
func (o *Options) stopGrace() time.Duration   { return orDuration(o.StopGrace, DefaultStopGrace) }
func (o *Options) callTimeout() time.Duration { return orDuration(o.CallTimeout, 60*time.Second) }
func (o *Options) maxMessage() int            { return orInt(o.MaxMessageBytes, DefaultMaxMessageBytes) }
func (o *Options) maxResult() int             { return orInt(o.MaxResultBytes, DefaultMaxResultBytes) }
func (o *Options) clientVersion() string {
	if o.ClientVersion == "" {
		return "dev"
	}
	return o.ClientVersion
}

func orDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func orInt(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// delay is the wait before restart number n (0-based).
func (b Backoff) delay(n int) time.Duration {
	d := orDuration(b.Base, 500*time.Millisecond)
	max := orDuration(b.MaxDelay, 30*time.Second)
	for i := 0; i < n && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}

func (b Backoff) max() int {
	if b.Max == 0 {
		return 5
	}
	return max(b.Max, 0)
}

// State is where a server is in its life.
type State string

const (
	StateDisabled      State = "disabled"       // enabled: false, or mcp.enabled: false
	StateNeedsApproval State = "needs-approval" // a workspace server the user has not approved
	StateConnecting    State = "connecting"
	StateReady         State = "ready"
	StateFailed        State = "failed"
	StateStopped       State = "stopped" // after Close
)

// Status is what `ollm mcp list` shows about a server.
type Status struct {
	Name      string       `json:"name"`
	State     State        `json:"state"`
	Transport string       `json:"transport"`
	Command   string       `json:"command"` // command line or URL
	Scope     schema.Scope `json:"scope,omitempty"`
	Tools     int          `json:"tools"`
	Error     string       `json:"error,omitempty"`
	Warnings  []string     `json:"warnings,omitempty"`
	Sandbox   string       `json:"sandbox,omitempty"` // what its process runs under, e.g. "workspace-write, network"
	Restarts  int          `json:"restarts,omitempty"`
	Protocol  string       `json:"protocol,omitempty"` // the revision negotiated, e.g. "2025-11-25"
	Log       string       `json:"log,omitempty"`
	// Since is when the current connection attempt began (StateConnecting
	// only), so a caller waiting for the server can say for how long.
	Since time.Time `json:"-"`
	// Cached: the server is connecting for the first time and its tools
	// are offered from the tool cache meanwhile (Options.EarlyTools), so
	// a first prompt does not wait for it.
	Cached bool `json:"-"`
}

// Event reports a change: a server's new status and the whole MCP tool set
// as it is now (names can change when a newly connected server brings a
// tool name another server already has). The registry owner replaces its
// MCP tools with Tools.
type Event struct {
	Server string
	Status Status
	Tools  []tool.Tool
}

// Manager runs a set of MCP servers.
type Manager struct {
	opts    Options
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	servers map[string]*server
	order   []string
	closing bool
	wg      sync.WaitGroup
	eventMu sync.Mutex
	loginMu sync.Mutex // one browser login at a time

	toolsValid bool
	tools      []tool.Tool

	protocols *protocolCache
	toolCache *toolCache

	// earlyNames are the model-facing names given to tools offered from
	// the tool cache (early.go), so a call the model makes after the
	// server's own list replaced them still finds them and is told why.
	earlyNames map[string]ToolKey
	earlyOnce  sync.Once // the tool cache entries are looked up once
}

// server is the Manager's record of one server.
type server struct {
	spec     Spec
	status   Status
	conn     *conn
	logs     *serverLog
	defs     []*toolDef
	settled  chan struct{} // closed once the first attempt has finished
	settle   sync.Once
	refresh  chan struct{} // a pending tools/list refresh, capacity 1
	readyAt  time.Time
	attempts int
	auth     *authTransport // HTTP servers with a TokenDir
	// early are the tools of the server's tool cache entry, offered while
	// its first connection attempt runs (Options.EarlyTools); earlyKnown
	// is closed once the entry was looked up, cached says it was found.
	early      []*toolDef
	earlyKnown chan struct{}
	cached     bool
	// spawned: the first connection attempt was started (or, after
	// Close, never will be); held: the StartGate held it back.
	spawned    sync.Once
	held       atomic.Bool
	connecting bool // Start marked it connecting (deferstart.go)
}

// New prepares a Manager for specs; Start starts them.
func New(specs []Spec, opts Options) *Manager {
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.wrap == nil {
		opts.wrap = sandbox.Wrap
	}
	m := &Manager{opts: opts, servers: map[string]*server{}, protocols: newProtocolCache(opts.ProtocolCache),
		toolCache: newToolCache(opts.ToolCache, opts.maxMessage())}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	for _, sp := range specs {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, sp.Name) {
			continue
		}
		s := &server{spec: sp, settled: make(chan struct{}), refresh: make(chan struct{}, 1)}
		s.status = Status{Name: sp.Name, Transport: sp.Transport(), Scope: sp.Scope}
		s.status.Command = m.command(s)
		if m.earlyCandidate(s) {
			// Made here, before any goroutine sees s, and never replaced:
			// WaitReady may run before Start (a held extension's servers).
			s.earlyKnown = make(chan struct{})
		}
		m.servers[sp.Name] = s
		m.order = append(m.order, sp.Name)
	}
	return m
}

// FromResolved prepares a Manager for the servers of a resolved profile,
// taking mcp.enabled and mcp.connectionTimeout from it.
func FromResolved(r *schema.Resolved, opts Options) *Manager {
	return FromSpecs(r, Specs(r), opts)
}

// FromSpecs is FromResolved with the specs given: Specs(r) with each
// extension server's SettingsEnv resolved from the environment too, as
// the extension manager does in a session (a server is given ollm's
// environment by allow-list only, so a setting set by its envVar reaches
// it only this way).
func FromSpecs(r *schema.Resolved, specs []Spec, opts Options) *Manager {
	opts.Disabled = opts.Disabled || !r.Profile.MCP.Enabled
	if opts.ConnectionTimeout == 0 && r.Profile.MCP.ConnectionTimeout > 0 {
		opts.ConnectionTimeout = time.Duration(r.Profile.MCP.ConnectionTimeout) * time.Millisecond
	}
	if len(opts.Roots) == 0 && r.Workspace != "" {
		opts.Roots = []string{r.Workspace}
	}
	return New(specs, opts)
}

// Start connects every enabled server in parallel and returns at once; a
// session can begin while servers are still connecting. WaitReady waits.
func (m *Manager) Start() {
	m.loadAllEarly()
	for _, name := range m.order {
		s := m.servers[name]
		switch {
		case m.opts.Disabled || !s.spec.Config.Enabled:
			m.setState(s, StateDisabled, nil)
			s.settle.Do(func() { close(s.settled) })
		case s.spec.Off != "":
			m.setState(s, StateDisabled, errors.New(s.spec.Off))
			s.settle.Do(func() { close(s.settled) })
		case s.spec.NeedsApproval() && (m.opts.Approved == nil || !m.opts.Approved(s.spec)):
			m.setState(s, StateNeedsApproval, errors.New("a workspace server runs only after you approve the workspace"))
			s.settle.Do(func() { close(s.settled) })
		default:
			m.markConnecting(s)
		}
	}
	m.startConnecting()
}

// WaitReady waits until every server has finished its first connection
// attempt (ready or failed), or ctx ends. With Options.EarlyTools a
// server whose tools the tool cache holds is not waited for (early.go).
func (m *Manager) WaitReady(ctx context.Context) error {
	for _, name := range m.order {
		s := m.servers[name]
		if m.offersEarly(ctx, s) {
			continue
		}
		select {
		case <-s.settled:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Status lists every server's status in name order.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.order))
	for _, name := range m.order {
		out = append(out, m.servers[name].snapshot())
	}
	return out
}

func (s *server) snapshot() Status {
	st := s.status
	st.Warnings = append([]string(nil), st.Warnings...)
	st.Tools = len(s.defs)
	if s.offersEarlyLocked() {
		st.Cached, st.Tools = true, len(s.early)
	}
	if s.logs != nil {
		st.Log = s.logs.path
	}
	return st
}

// setState records a state change and tells OnEvent.
func (m *Manager) setState(s *server, state State, err error) {
	m.mu.Lock()
	s.status.State = state
	s.status.Error = ""
	s.status.Since = time.Time{}
	if state == StateConnecting {
		s.status.Since = time.Now()
	}
	if err != nil {
		s.status.Error = err.Error()
	}
	if state != StateReady {
		s.defs = nil
		s.conn = nil
	}
	m.toolsValid = false
	m.mu.Unlock()
	m.emit(s)
}

func (m *Manager) emit(s *server) {
	if m.opts.OnEvent == nil {
		return
	}
	m.eventMu.Lock()
	defer m.eventMu.Unlock()
	m.mu.Lock()
	st := s.snapshot()
	m.mu.Unlock()
	m.opts.OnEvent(Event{Server: s.spec.Name, Status: st, Tools: m.Tools()})
}

// Close stops every server (stdin closed, then SIGTERM, then SIGKILL to its
// process group) and waits until all of them are gone.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closing = true
	var conns []*conn
	for _, s := range m.servers {
		if s.conn != nil {
			conns = append(conns, s.conn)
		}
	}
	m.mu.Unlock()
	m.settleUnstarted()
	m.cancel()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); c.close() }()
	}
	wg.Wait()
	m.wg.Wait()
	for _, s := range m.servers {
		if s.logs != nil {
			_ = s.logs.Close()
		}
	}
	return nil
}

func (m *Manager) isClosing() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closing
}
