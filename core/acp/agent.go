// Package acp is ollm as an Agent Client Protocol agent: an editor (Zed,
// Neovim, Emacs, JetBrains) talks JSON-RPC over stdio and gets the same
// session runtime `ollm run` and the TUI drive (core/runtime, the
// core/agent loop, the confirmation bus). Nothing here is a second agent
// loop: a session/prompt is one agent.Session.Run, its events become
// session/update notifications, and the bus's confirmations become
// session/request_permission requests.
//
// The wire types and JSON-RPC connection are github.com/coder/acp-go-sdk
// (see docs/decisions.md).
//
// Imports: the standard library, the SDK, store, core/runtime,
// core/agent, core/bus, core/hooks, core/policy, core/tool. Never cmd.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/store"
)

// Options are what the command layer decides for every session.
type Options struct {
	// Home is OLLM_HOME: saved sessions live in Home.Sessions().
	Home store.Home
	// NewRuntime builds the runtime of the workspace at cwd, the way
	// `ollm run` does there (its current generation, trust and sandbox).
	NewRuntime func(ctx context.Context, cwd string, o runtime.Options) (*runtime.Runtime, error)
	// Mode is the approval mode sessions start in ("" keeps the profile's).
	Mode string
	// SwitchModel switches a session's model, as the terminal's /model
	// NAME does; it returns what to tell the user.
	SwitchModel func(ctx context.Context, rt *runtime.Runtime, s *agent.Session, name string) (string, error)
	Version     string
	Now         func() time.Time
	// Log receives diagnostics (stderr); stdout is the protocol's.
	Log io.Writer
}

// Agent is the ACP agent: one per connection, any number of sessions.
type Agent struct {
	opts Options
	conn *sdk.AgentSideConnection
	ctx  context.Context // the connection's: notifications and background work

	mu       sync.Mutex
	caps     sdk.ClientCapabilities
	sessions map[string]*session
}

var (
	_ sdk.Agent       = (*Agent)(nil)
	_ sdk.AgentLoader = (*Agent)(nil)
)

// Serve runs the agent on in/out until the client disconnects or ctx ends,
// then closes every session.
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	a := newAgent(ctx, o)
	a.conn = sdk.NewAgentSideConnection(a, out, in)
	a.conn.SetLogger(slog.New(slog.NewTextHandler(a.opts.Log, &slog.HandlerOptions{Level: slog.LevelWarn})))
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	a.closeAll()
	return nil
}

func newAgent(ctx context.Context, o Options) *Agent {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return &Agent{opts: o, ctx: ctx, sessions: map[string]*session{}}
}

func (a *Agent) logf(format string, args ...any) {
	fmt.Fprintf(a.opts.Log, "ollm acp: "+format+"\n", args...)
}

// Initialize answers with what ollm can do: load, resume, list and close
// saved sessions, prompts with embedded context and images, the editor's
// MCP servers (stdio, HTTP, SSE), no authentication
// (models are local).
func (a *Agent) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	title := "ollm"
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "ollm", Title: &title, Version: a.opts.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession: true,
			// The editor's MCP servers join a session once approved (servers.go);
			// stdio is always offered.
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true, Image: true}, // images.go
			SessionCapabilities: sdk.SessionCapabilities{Close: &sdk.SessionCloseCapabilities{},
				List: &sdk.SessionListCapabilities{}, Resume: &sdk.SessionResumeCapabilities{},
				AdditionalDirectories: &sdk.SessionAdditionalDirectoriesCapabilities{}, // dirs.go
				Fork:                  &sdk.SessionForkCapabilities{}},                 // fork.go
		},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate: ollm has no authentication methods to offer.
func (a *Agent) Authenticate(ctx context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

func (a *Agent) clientCaps() sdk.ClientCapabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.caps
}

// NewSession starts a runtime on the workspace the editor names and a new
// saved session in it.
func (a *Agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	id := agent.NewID(a.opts.Now())
	s, err := a.open(ctx, p.Cwd, id, nil, nil, p.McpServers, p.AdditionalDirectories)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	go s.advertise()
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(id), Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// LoadSession resumes a saved ollm session (any session in
// $OLLM_HOME/sessions: the TUI's, `ollm run`'s or an editor's), replaying
// its conversation as session/update notifications first.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	s, err := a.resume(ctx, p.SessionId, p.Cwd, p.McpServers, p.AdditionalDirectories, true)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	return sdk.LoadSessionResponse{Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// ResumeSession is session/load without the replay: the editor still
// shows the conversation.
func (a *Agent) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	s, err := a.resume(ctx, p.SessionId, p.Cwd, p.McpServers, p.AdditionalDirectories, false)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	return sdk.ResumeSessionResponse{Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// ListSessions lists the saved sessions, the latest first, of the
// editor's workspace when it names one.
func (a *Agent) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	cwd, cursor := "", ""
	if p.Cwd != nil {
		cwd = *p.Cwd
	}
	if p.Cursor != nil {
		cursor = *p.Cursor
	}
	resp, err := listSessions(a.opts.Home.Sessions(), cwd, cursor)
	if err != nil {
		return sdk.ListSessionsResponse{}, failure(err)
	}
	return resp, nil
}

func (a *Agent) resume(ctx context.Context, sid sdk.SessionId, cwd string, servers []sdk.McpServer, dirs []string, replay bool) (*session, error) {
	if a.session(string(sid)) != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s is already open", sid)})
	}
	if !validID(string(sid)) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session id %s is not one", sid)})
	}
	tr, id, history, err := agent.Resume(a.opts.Home.Sessions(), string(sid), a.opts.Now)
	if err != nil {
		return nil, notFound(fmt.Sprintf("session %s: %v", sid, err))
	}
	s, err := a.open(ctx, cwd, id, tr, history, servers, dirs)
	if err != nil {
		return nil, err
	}
	if replay {
		s.replay(ctx, history)
	}
	go s.advertise()
	return s, nil
}

// open builds the runtime and the agent session.
func (a *Agent) open(ctx context.Context, cwd, id string, tr *agent.Transcript, history []llm.Message, servers []sdk.McpServer, dirs []string) (*session, error) {
	var bad error
	if cwd == "" || !filepath.IsAbs(cwd) {
		bad = sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q: an absolute path is required", cwd)})
	} else if err := isDir(cwd); err != nil {
		bad = sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	extra, err := extraDirs(dirs)
	if bad == nil && err != nil {
		bad = sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if bad != nil {
		if tr != nil {
			tr.Close()
		}
		return nil, bad
	}
	s := &session{a: a, id: id, turn: make(chan struct{}, 1), calls: map[string]*call{}, confirms: map[string]string{}, refused: map[string]bool{},
		editorServers: servers, extraDirs: extra}
	rt, err := a.opts.NewRuntime(ctx, cwd, runtime.Options{SessionID: id, Mode: a.opts.Mode, ExtraDirs: extra,
		ApproveHook: s.approveHook, OnNotice: s.notice, OnNotify: s.notify})
	if err != nil {
		if tr != nil {
			tr.Close()
		}
		return nil, failure(err)
	}
	s.rt = rt
	for _, w := range rt.Warnings {
		a.logf("session %s: warning: %s", id, w)
	}
	if err := s.start(tr, history); err != nil {
		rt.Close()
		return nil, err
	}
	s.listModels(ctx)
	a.mu.Lock()
	a.sessions[id] = s
	a.mu.Unlock()
	return s, nil
}

func (a *Agent) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

func (a *Agent) mustSession(id sdk.SessionId) (*session, error) {
	s := a.session(string(id))
	if s == nil {
		return nil, notFound(fmt.Sprintf("session %s is not open in this connection: session/new or session/load first", id))
	}
	return s, nil
}

// Prompt runs one prompt turn; session/cancel ends its context.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.mustSession(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return s.prompt(ctx, p.Prompt)
}

// Cancel ends the session's running turn: the model request, a pending
// permission request and a running shell command stop. (The turn runs on
// its own context, not the request's: see session.prompt.)
func (a *Agent) Cancel(ctx context.Context, p sdk.CancelNotification) error {
	if s := a.session(string(p.SessionId)); s != nil {
		s.cancel()
	}
	return nil
}

// SetSessionMode switches the session's approval mode.
func (a *Agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.mustSession(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	m, err := policy.ParseMode(string(p.ModeId))
	if err != nil {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s.setMode(m)
	return sdk.SetSessionModeResponse{}, nil
}

// CloseSession ends a session: session_end hooks, the transcript, the
// runtime's processes.
func (a *Agent) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[string(p.SessionId)]
	delete(a.sessions, string(p.SessionId))
	a.mu.Unlock()
	if s != nil {
		s.close()
	}
	return sdk.CloseSessionResponse{}, nil
}

// SetSessionConfigOption sets the model or the approval mode (config.go)
// and answers with every option's value.
func (a *Agent) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "ollm's config options (model, mode) take a value id, not a boolean"})
	}
	s, err := a.mustSession(p.ValueId.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	if err := s.setConfig(ctx, p.ValueId.ConfigId, string(p.ValueId.Value)); err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}

func (a *Agent) closeAll() {
	a.mu.Lock()
	list := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		list = append(list, s)
	}
	a.sessions = map[string]*session{}
	a.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].id < list[j].id })
	for _, s := range list {
		s.close()
	}
}

// modes are ollm's approval modes as ACP session modes.
var modes = []struct {
	id   policy.Mode
	name string
	desc string
}{
	{policy.ModeDefault, "Default", "the profile's rules; anything else asks"},
	{policy.ModeAutoEdit, "Auto edit", "file edits run without asking; deny rules still hold"},
	{policy.ModePlan, "Plan", "read-only: anything that is not read-only is denied"},
	{policy.ModeYolo, "YOLO", "everything runs except what a deny rule refuses"},
}

// stopReason maps the loop's outcome to the turn's stop reason; errors
// that are not a way of stopping are returned as JSON-RPC errors.
func stopReason(err error) (sdk.StopReason, error) {
	var (
		be *agent.BlockedError
		te *agent.TurnLimitError
	)
	switch {
	case err == nil:
		return sdk.StopReasonEndTurn, nil
	case errors.Is(err, agent.ErrCancelled), errors.Is(err, context.Canceled):
		return sdk.StopReasonCancelled, nil
	case errors.As(err, &te):
		return sdk.StopReasonMaxTurnRequests, nil
	case errors.As(err, &be):
		return sdk.StopReasonRefusal, nil
	}
	return "", failure(err)
}

// failure is an error as the editor shows it: its message is ollm's.
func failure(err error) error {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return re
	}
	return &sdk.RequestError{Code: -32603, Message: err.Error()}
}

// isDir checks that a session's cwd is an existing directory, the error
// naming the path.
func isDir(cwd string) error {
	fi, err := os.Stat(cwd)
	switch {
	case err != nil:
		return fmt.Errorf("cwd %q: not an existing directory (%v)", cwd, err)
	case !fi.IsDir():
		return fmt.Errorf("cwd %q: not a directory", cwd)
	}
	return nil
}

// notFound is ACP's "resource not found".
func notFound(msg string) error { return &sdk.RequestError{Code: -32002, Message: msg} }

func trimLines(s string) string { return strings.TrimRight(s, "\n") }
