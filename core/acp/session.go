package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/core/tool"
)

// session is one ACP session: a runtime on the editor's workspace and an
// agent session on it.
type session struct {
	a     *Agent
	id    string
	rt    *runtime.Runtime
	s     *agent.Session
	tools agent.Tools

	stopBus context.CancelFunc
	turn    chan struct{} // holds a token while a prompt runs
	// editorServers are the MCP servers of session/new (or load, resume),
	// started at the first prompt
	editorServers []sdk.McpServer
	// extraDirs are the editor's additionalDirectories, resolved (dirs.go)
	extraDirs []string

	mu        sync.Mutex
	mode      policy.Mode
	models    []string          // the provider's models, for the model option
	calls     map[string]*call  // tool call id -> what the editor was shown
	confirms  map[string]string // confirmation key -> tool call id
	refused   map[string]bool   // hooks refused in this session: not asked again
	asked     bool              // the pending hooks and servers were asked about
	promptCtx context.Context
	// cancelTurn ends the running turn (session/close)
	cancelTurn context.CancelFunc
	closed     bool
}

// call is a tool call as the editor sees it.
type call struct {
	id, name, title string
	kind            sdk.ToolKind
	locations       []sdk.ToolCallLocation
	diff            *sdk.ToolCallContentDiff
	output          strings.Builder
	terminal        string // the editor's terminal the command runs in
}

// start builds the agent session and answers the bus.
func (s *session) start(tr *agent.Transcript, history []llm.Message) error {
	cfg := s.rt.AgentConfig()
	var err error
	if tr == nil {
		if tr, err = agent.Create(s.a.opts.Home.Sessions(), s.id, s.rt.Workspace.Root, cfg.Model, s.a.opts.Now); err != nil {
			return failure(err)
		}
		// A fork's transcript starts with the conversation it copies.
		if err := tr.Append(history...); err != nil {
			tr.Close()
			return failure(err)
		}
	}
	cfg.Transcript, cfg.History, cfg.OnEvent = tr, history, s.event
	if len(s.extraDirs) > 0 && cfg.System != "" {
		// A new session's model learns where else it may work.
		cfg.System += "\n\nBesides the project, the user gave this session these directories; the tools may read and write them (use absolute paths): " +
			strings.Join(s.extraDirs, ", ") + "."
	}
	caps := s.a.clientCaps()
	if caps.Fs.ReadTextFile || caps.Fs.WriteTextFile || caps.Terminal {
		cfg.Tools = clientTools{inner: cfg.Tools, s: s, read: caps.Fs.ReadTextFile, write: caps.Fs.WriteTextFile, term: caps.Terminal}
	}
	s.tools = cfg.Tools
	s.mode = s.rt.Policy().Mode()
	if s.s, err = agent.New(cfg); err != nil {
		tr.Close()
		return failure(err)
	}
	ctx, cancel := context.WithCancel(s.a.ctx)
	s.stopBus = cancel
	go s.answer(s.rt.Bus.Subscribe(ctx, bus.Answerer))
	return nil
}

func (s *session) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	if s.cancelTurn != nil {
		s.cancelTurn() // session/close ends a running turn first
	}
	s.mu.Unlock()
	s.turn <- struct{}{} // the turn has ended; no other starts
	s.stopBus()
	_ = s.s.Close(context.WithoutCancel(s.a.ctx))
	_ = s.rt.Close()
}

// cancel ends the running turn, if any (session/cancel).
func (s *session) cancel() {
	s.mu.Lock()
	if s.cancelTurn != nil {
		s.cancelTurn()
	}
	s.mu.Unlock()
}

func (s *session) update(u sdk.SessionUpdate) {
	if err := s.a.conn.SessionUpdate(s.a.ctx, sdk.SessionNotification{SessionId: sdk.SessionId(s.id), Update: u}); err != nil {
		s.a.logf("session %s: session/update: %v", s.id, err)
	}
}

// say is a message to the user in the agent's voice.
func (s *session) say(text string) { s.update(sdk.UpdateAgentMessageText(text)) }

func (s *session) notice(text string) { s.update(sdk.UpdateAgentThoughtText("notice: " + text + "\n")) }

// notify shows what an extension (a persistent hook) or an MCP server
// pushes, labelled with its source ("[greeter] info: ..."), as a line of
// the agent's message: ACP has no update for a notice out of band.
func (s *session) notify(n hooks.Notification) { s.say("\n" + n.Label() + "\n") }

func (s *session) modeState() *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(s.currentMode())}
	for _, m := range modes {
		d := m.desc
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.id), Name: m.name, Description: &d})
	}
	return st
}

func (s *session) currentMode() policy.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// setMode puts the session's policy in mode m; this session's "always"
// answers stay.
func (s *session) setMode(m policy.Mode) {
	s.applyMode(m)
	s.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(m), SessionUpdate: "current_mode_update"}})
	s.configChanged()
}

// applyMode puts the session's policy in mode m without telling the editor.
func (s *session) applyMode(m policy.Mode) {
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
	s.s.SetPolicy(s.rt.Policy().WithMode(m))
}

// advertise sends the skills (profile, folder, extension and MCP prompt
// skills) as slash commands.
func (s *session) advertise(extra ...string) {
	for _, w := range append(append([]string(nil), s.rt.Warnings...), extra...) {
		s.notice("warning: " + w)
	}
	if t := grantedText(s.extraDirs); t != "" {
		s.notice(t)
	}
	cmds := []sdk.AvailableCommand{}
	for _, e := range s.rt.Skills.List() {
		c := sdk.AvailableCommand{Name: e.Name, Description: e.Description}
		if len(e.Placeholders) > 0 {
			hint := strings.Join(e.Placeholders, "=... ") + "=..."
			if len(e.Placeholders) == 1 {
				hint = e.Placeholders[0]
			}
			c.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
		}
		cmds = append(cmds, c)
	}
	s.update(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds, SessionUpdate: "available_commands_update"}})
}

// prompt runs one turn. A session runs one turn at a time: a
// session/prompt while one runs is refused (the editor waits for the
// running turn's response or sends session/cancel). The turn runs on the
// connection's context, ended by session/cancel (Agent.Cancel) or
// session/close: the SDK cancels the running request's context when a
// second session/prompt arrives, which must not end the first.
func (s *session) prompt(_ context.Context, blocks []sdk.ContentBlock) (sdk.PromptResponse, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return sdk.PromptResponse{}, notFound(fmt.Sprintf("session %s was closed", s.id))
	}
	select {
	case s.turn <- struct{}{}:
	default:
		return sdk.PromptResponse{}, sdk.NewInvalidRequest(map[string]any{"error": fmt.Sprintf(
			"session %s is already running a prompt: wait for its session/prompt response, or send session/cancel first", s.id)})
	}
	defer func() { <-s.turn }()
	ctx, cancel := context.WithCancel(s.a.ctx)
	defer cancel()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return sdk.PromptResponse{}, notFound(fmt.Sprintf("session %s was closed", s.id))
	}
	s.promptCtx, s.cancelTurn = ctx, cancel
	first := !s.asked
	s.asked = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.promptCtx, s.cancelTurn = nil, nil
		s.mu.Unlock()
	}()
	if first {
		started := s.askPending(ctx)
		// The first prompt sees the MCP servers' tools, as `ollm run`'s
		// does; session/new did not wait for them. A server still
		// connecting once the others settled is named in a notice; one
		// that fails or times out is a warning, and the prompt goes on.
		warnings, err := s.rt.WaitServersNotify(ctx, s.notice)
		if err != nil {
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
		for _, w := range warnings {
			s.notice("warning: " + w)
		}
		for _, sv := range started {
			if st, ok := s.rt.ServerStatus(sv.name); ok && st.State == mcp.StateReady {
				s.notice(fmt.Sprintf("MCP server %s%s %s: %d tools", st.Name, sv.from, st.State, st.Tools))
			}
		}
	}
	var err error
	if err = s.s.Start(ctx); err == nil {
		text := promptText(blocks)
		if name, vars, ok := s.skillCall(text); ok {
			_, err = s.s.RunSkill(ctx, s.rt.Skills, name, vars)
		} else if images := s.promptImages(ctx, blocks); len(images) > 0 {
			_, err = s.s.RunWithImages(ctx, text, images)
		} else {
			_, err = s.s.Run(ctx, text)
		}
	}
	var be *agent.BlockedError
	if errors.As(err, &be) {
		s.say("\n" + be.Error())
	}
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	reason, err := stopReason(err)
	return sdk.PromptResponse{StopReason: reason}, err
}

// promptText is the prompt as the model reads it: text blocks as they
// are, resource links as @mentions and embedded resources as files.
func promptText(blocks []sdk.ContentBlock) string {
	var b strings.Builder
	for _, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil:
			fmt.Fprintf(&b, " @%s ", uriPath(c.ResourceLink.Uri))
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			r := c.Resource.Resource.TextResourceContents
			fmt.Fprintf(&b, "\n<file path=%q>\n%s\n</file>\n", uriPath(r.Uri), r.Text)
		}
	}
	return strings.TrimSpace(b.String())
}

func uriPath(uri string) string { return strings.TrimPrefix(uri, "file://") }

// skillCall reads "/name args": KEY=VALUE pairs, or, for a skill with one
// placeholder, the whole rest as its value.
func (s *session) skillCall(text string) (string, map[string]string, bool) {
	if !strings.HasPrefix(text, "/") {
		return "", nil, false
	}
	name, rest, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	rest = strings.TrimSpace(rest)
	for _, e := range s.rt.Skills.List() {
		if e.Name != name {
			continue
		}
		vars := map[string]string{}
		if len(e.Placeholders) == 1 && !strings.HasPrefix(rest, e.Placeholders[0]+"=") {
			vars[e.Placeholders[0]] = rest
			return name, vars, true
		}
		for _, f := range strings.Fields(rest) {
			if k, v, ok := strings.Cut(f, "="); ok {
				vars[k] = v
			}
		}
		return name, vars, true
	}
	return "", nil, false
}

// askPending asks, before the first prompt, about what the workspace
// brings that needs an approval: unapproved hooks (approved for good, as
// `ollm hooks trust` would) and held workspace MCP servers (for this
// session); then it starts the editor's MCP servers, asking about those
// not approved yet. Nothing is approved silently. The servers start in
// the background, all at once: the prompt's WaitServersNotify waits for
// them with the others. It returns the servers it started.
func (s *session) askPending(ctx context.Context) []startedServer {
	for _, r := range s.rt.PendingHooks() {
		if s.askApproval(ctx, "hook:"+r.ID, hookTitle(r), hookDetail(r)) {
			if err := s.rt.ApproveHook(r); err != nil {
				s.notice(err.Error())
			}
		} else {
			s.refuse(r.ID)
		}
	}
	var started []startedServer
	for _, sp := range s.rt.PendingServers() {
		title := fmt.Sprintf("Start workspace MCP server %s?", sp.Name)
		detail := runtime.DescribeSpec(sp) + "\n\nThe workspace is not approved; approving starts this server for this session (`ollm trust` approves the workspace)."
		if !s.askApproval(ctx, "mcp:"+sp.Name, title, detail) {
			continue
		}
		if err := s.rt.ApproveServerInBackground(sp.Name); err != nil {
			s.notice(err.Error())
		} else {
			started = append(started, startedServer{name: sp.Name})
		}
	}
	return append(started, s.startEditorServers(ctx, s.editorServers)...)
}

// startedServer is a server the first prompt started: its name and where
// it came from, as its notice says it.
type startedServer struct{ name, from string }

func hookTitle(r hooks.ApprovalRequest) string {
	name := r.ID
	if r.Hook != nil {
		name = r.Hook.QualifiedName() + " (" + string(r.Hook.Event) + ", " + string(r.Hook.Scope) + ")"
	}
	if r.Changed {
		return "Run the changed hook " + name + "?"
	}
	return "Run hook " + name + "?"
}

func hookDetail(r hooks.ApprovalRequest) string {
	return "```\n" + r.Command + "\n```\nApproving records the hook's hash in the trusted hooks, as `ollm hooks trust` does."
}

func (s *session) refuse(id string) {
	s.mu.Lock()
	s.refused[id] = true
	s.mu.Unlock()
}

// approveHook is the hook engine's question about a hook that appears
// mid-session (or one refused before: not asked again).
func (s *session) approveHook(ctx context.Context, r hooks.ApprovalRequest) (bool, error) {
	s.mu.Lock()
	refused := s.refused[r.ID]
	s.mu.Unlock()
	if refused {
		return false, nil
	}
	ok := s.askApproval(ctx, "hook:"+r.ID, hookTitle(r), hookDetail(r))
	if !ok {
		s.refuse(r.ID)
	}
	return ok, nil
}

// askApproval shows an approval as a tool call of its own and asks for it
// through the editor's permission prompt.
func (s *session) askApproval(ctx context.Context, id, title, detail string) bool {
	return s.ask(ctx, id, title, detail, []sdk.PermissionOption{
		{OptionId: "approve", Name: "Approve", Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: "refuse", Name: "Refuse", Kind: sdk.PermissionOptionKindRejectOnce},
	}) == "approve"
}

// ask shows a question as a tool call of kind other and asks it in the
// editor's permission prompt; it returns the option chosen, "" for none
// (dismissed, cancelled, failed). Any option but the first rejecting
// kind completes the call.
func (s *session) ask(ctx context.Context, id, title, detail string, options []sdk.PermissionOption) string {
	id = fmt.Sprintf("%s#%s", id, agent.NewID(s.a.opts.Now()))
	s.update(sdk.StartToolCall(sdk.ToolCallId(id), title, sdk.WithStartKind(sdk.ToolKindOther),
		sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(detail))})))
	st := sdk.ToolCallStatusPending
	resp, err := s.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(s.id),
		ToolCall: sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Title: &title, Status: &st,
			Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(detail))}}, Options: options})
	chosen := ""
	if err == nil && resp.Outcome.Selected != nil {
		chosen = string(resp.Outcome.Selected.OptionId)
	}
	done := sdk.ToolCallStatusFailed
	for _, o := range options {
		if string(o.OptionId) == chosen && (o.Kind == sdk.PermissionOptionKindAllowOnce || o.Kind == sdk.PermissionOptionKindAllowAlways) {
			done = sdk.ToolCallStatusCompleted
		}
	}
	s.update(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(done)))
	return chosen
}

// permission options of a tool call confirmation: ollm's three answers.
var permissionOptions = []sdk.PermissionOption{
	{OptionId: sdk.PermissionOptionId(bus.AllowOnce), Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
	{OptionId: sdk.PermissionOptionId(bus.AllowAlways), Name: "Always allow (saved to the user profile)", Kind: sdk.PermissionOptionKindAllowAlways},
	{OptionId: sdk.PermissionOptionId(bus.Deny), Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
}

// optionsFor are the answers offered for d: with the narrower "always"
// of a shell call (its program and sub-command, not every use of the
// program) as a second allow-always option, as the TUI offers it.
func optionsFor(d policy.Details) []sdk.PermissionOption {
	if d.Trust != "" { // a file that decides what runs: this call only
		return []sdk.PermissionOption{permissionOptions[0], permissionOptions[2]}
	}
	if d.AlwaysNarrow == "" {
		return permissionOptions
	}
	return []sdk.PermissionOption{permissionOptions[0], permissionOptions[1],
		{OptionId: sdk.PermissionOptionId(bus.AllowAlwaysNarrow), Name: "Always allow the sub-command only (saved to the user profile)", Kind: sdk.PermissionOptionKindAllowAlways},
		permissionOptions[2]}
}

// answer answers the bus's confirmations through the editor.
func (s *session) answer(ch <-chan bus.Event) {
	for ev := range ch {
		if ev.Kind == bus.Requested {
			go s.confirm(ev.Request)
		}
	}
}

func confirmKey(d policy.Details) string { return d.Tool + "\x00" + string(d.Params) }

// confirm asks the editor about one confirmation and answers the bus.
func (s *session) confirm(req bus.Request) {
	d := req.Details
	if s.mcpRequest(req) { // mcp_requests.go
		return
	}
	s.mu.Lock()
	id, known := s.confirms[confirmKey(d)]
	delete(s.confirms, confirmKey(d))
	ctx := s.promptCtx
	c := s.calls[id]
	s.mu.Unlock()
	if ctx == nil {
		ctx = s.a.ctx
	}
	if !known {
		id = "confirm-" + req.ID
	}
	title := d.Description
	if title == "" {
		title = d.Tool
	}
	st := sdk.ToolCallStatusPending
	tc := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Title: &title, Status: &st, RawInput: argsValue(d.Params)}
	kind := toolKind(d.Kind)
	tc.Kind = &kind
	why := "Asked by " + ruleName(d) + ": " + d.Reason
	if d.Trust != "" {
		why = "A file that decides what runs: " + d.Trust + ". Allow only this write.\n\n" + why
	}
	if d.Command != "" {
		why = "```\n" + d.Command + "\n```\n" + why
	}
	if d.AlwaysNarrow != "" {
		why += "\n\nAlways allow saves: " + d.Always + "\nThe sub-command only saves: " + d.AlwaysNarrow
	}
	if c != nil && c.diff != nil {
		tc.Content = append(tc.Content, sdk.ToolCallContent{Diff: c.diff})
	}
	tc.Content = append(tc.Content, sdk.ToolContent(sdk.TextBlock(why)))
	if c != nil {
		tc.Locations = c.locations
	}
	resp, err := s.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(s.id), ToolCall: tc, Options: optionsFor(d)})
	r := bus.Response{ID: req.ID, Answer: bus.Deny}
	switch {
	case err != nil:
		r.Feedback = "the editor did not answer: " + err.Error()
	case resp.Outcome.Cancelled != nil:
		r.Feedback = "the prompt was cancelled"
	case resp.Outcome.Selected != nil:
		switch a := bus.Answer(resp.Outcome.Selected.OptionId); a {
		case bus.AllowOnce:
			r.Answer = a
		case bus.AllowAlways:
			if d.Trust == "" {
				r.Answer = a
			}
		case bus.AllowAlwaysNarrow:
			if d.AlwaysNarrow != "" {
				r.Answer = a
			}
		}
	}
	_ = s.rt.Bus.Respond(r)
}

func ruleName(d policy.Details) string {
	if d.Trust != "" {
		return "ollm's rule for files that decide what runs"
	}
	if d.Rule != nil {
		return "rule " + d.Rule.Label()
	}
	return "the default action"
}

func argsValue(raw json.RawMessage) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}

func toolKind(k tool.Kind) sdk.ToolKind {
	switch k {
	case tool.KindRead:
		return sdk.ToolKindRead
	case tool.KindSearch:
		return sdk.ToolKindSearch
	case tool.KindEdit:
		return sdk.ToolKindEdit
	case tool.KindDelete:
		return sdk.ToolKindDelete
	case tool.KindExecute:
		return sdk.ToolKindExecute
	case tool.KindFetch:
		return sdk.ToolKindFetch
	case tool.KindThink:
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// event turns one loop event into session/update notifications.
func (s *session) event(e agent.Event) {
	switch e.Type {
	case agent.EvContent:
		s.say(e.Text)
	case agent.EvThinking:
		s.update(sdk.UpdateAgentThoughtText(e.Text))
	case agent.EvNotice:
		s.notice(e.Text)
	case agent.EvToolCall:
		c := s.newCall(e.Tool)
		opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(c.kind), sdk.WithStartStatus(sdk.ToolCallStatusPending),
			sdk.WithStartRawInput(argsValue(e.Tool.Args))}
		if len(c.locations) > 0 {
			opts = append(opts, sdk.WithStartLocations(c.locations))
		}
		if c.diff != nil {
			opts = append(opts, sdk.WithStartContent([]sdk.ToolCallContent{{Diff: c.diff}}))
		}
		s.update(sdk.StartToolCall(sdk.ToolCallId(c.id), c.title, opts...))
	case agent.EvToolConfirm:
		s.mu.Lock()
		s.confirms[confirmKey(*e.Tool.Confirm)] = e.Tool.ID
		s.mu.Unlock()
	case agent.EvToolDecision:
		d := e.Tool.Decision
		if d != nil && (d.Action == policy.Allow || bus.Answer(e.Tool.Answer).Allowed()) {
			s.update(sdk.UpdateToolCall(sdk.ToolCallId(e.Tool.ID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
		}
	case agent.EvToolProgress:
		if e.Tool.Chunk != nil && strings.HasPrefix(e.Tool.Chunk.Message, terminalMarker) {
			id := strings.TrimPrefix(e.Tool.Chunk.Message, terminalMarker)
			s.mu.Lock()
			if c := s.calls[e.Tool.ID]; c != nil {
				c.terminal = id
			}
			s.mu.Unlock()
			s.update(sdk.UpdateToolCall(sdk.ToolCallId(e.Tool.ID), sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolTerminalRef(id)})))
			return
		}
		if e.Tool.Chunk == nil || e.Tool.Chunk.Text == "" {
			return
		}
		s.mu.Lock()
		c := s.calls[e.Tool.ID]
		out := ""
		if c != nil {
			c.output.WriteString(e.Tool.Chunk.Text)
			out = c.output.String()
		}
		s.mu.Unlock()
		if c != nil {
			s.update(sdk.UpdateToolCall(sdk.ToolCallId(e.Tool.ID), sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(out))})))
		}
	case agent.EvBlocked:
		text := "blocked: " + strings.Join(nonEmpty(e.Block.By, e.Block.Reason), ": ")
		if e.Tool == nil {
			return // the prompt's error says it
		}
		s.update(sdk.UpdateToolCall(sdk.ToolCallId(e.Tool.ID), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))})))
	case agent.EvToolResult:
		s.result(e.Tool)
	}
}

func nonEmpty(parts ...string) []string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// newCall records a tool call: its title, kind and locations from the
// tool's own invocation, and for file edits the diff the call would make.
func (s *session) newCall(te *agent.ToolEvent) *call {
	c := &call{id: te.ID, name: te.Name, title: te.Name, kind: sdk.ToolKindOther}
	if t, ok := s.tools.Get(te.Name); ok {
		c.kind = toolKind(t.Kind())
		if inv, err := t.Build(te.Args); err == nil {
			if d := inv.Description(); d != "" {
				c.title = d
			}
			for _, l := range inv.Locations() {
				if filepath.IsAbs(l) {
					c.locations = append(c.locations, sdk.ToolCallLocation{Path: l})
				}
			}
			if c.kind == sdk.ToolKindEdit && len(c.locations) == 1 {
				c.diff = s.plannedDiff(te.Name, c.locations[0].Path, inv.Params())
			}
		}
	}
	s.mu.Lock()
	s.calls[c.id] = c
	s.mu.Unlock()
	return c
}

// plannedDiff is what write_file or edit_file would make of path: the
// text now (through the editor when it can read) and the text after.
func (s *session) plannedDiff(name, path string, params json.RawMessage) *sdk.ToolCallContentDiff {
	var p struct {
		Content *string `json:"content"`
		Edits   []struct {
			OldText string `json:"oldText"`
			NewText string `json:"newText"`
		} `json:"edits"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	old, exists := s.readCurrent(path)
	var after string
	switch {
	case name == "write_file" && p.Content != nil:
		after = *p.Content
	case name == "edit_file" && exists:
		after = old
		for _, e := range p.Edits {
			after = strings.Replace(after, e.OldText, e.NewText, 1)
		}
	default:
		return nil
	}
	d := &sdk.ToolCallContentDiff{Path: path, NewText: after, Type: "diff"}
	if exists {
		d.OldText = &old
	}
	return d
}

// readCurrent reads a file as the editor has it when it can tell
// (unsaved buffers), else from disk.
func (s *session) readCurrent(path string) (string, bool) {
	if s.a.clientCaps().Fs.ReadTextFile {
		r, err := s.a.conn.ReadTextFile(s.a.ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(s.id), Path: path})
		if err == nil {
			return r.Content, true
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// result reports a finished call: its status, its output, the diff of an
// edit, and write_todos's list as the plan.
func (s *session) result(te *agent.ToolEvent) {
	s.mu.Lock()
	c := s.calls[te.ID]
	delete(s.calls, te.ID)
	s.mu.Unlock()
	res := te.Result
	st := sdk.ToolCallStatusCompleted
	text := res.Display
	if text == "" {
		text = res.ForModel
	}
	if res.Error != nil {
		st = sdk.ToolCallStatusFailed
		if text == "" {
			text = res.Error.Message
		}
	}
	var content []sdk.ToolCallContent
	if c != nil && c.terminal != "" {
		content = append(content, sdk.ToolTerminalRef(c.terminal))
	}
	if c != nil && c.diff != nil && res.Error == nil {
		content = append(content, sdk.ToolCallContent{Diff: c.diff})
	}
	if text != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(trimLines(text))))
	}
	s.update(sdk.UpdateToolCall(sdk.ToolCallId(te.ID), sdk.WithUpdateStatus(st), sdk.WithUpdateContent(content),
		sdk.WithUpdateRawOutput(map[string]any{"output": res.ForModel})))
	if te.Name == "write_todos" && res.Error == nil {
		if entries, ok := planEntries(res.Data); ok {
			s.update(sdk.UpdatePlan(entries...))
		}
	}
}

// planEntries reads write_todos's list (its Result.Data).
func planEntries(data any) ([]sdk.PlanEntry, bool) {
	b, err := json.Marshal(data)
	if err != nil {
		return nil, false
	}
	var todos []struct {
		Text string `json:"text"`
		Done bool   `json:"done"`
	}
	if json.Unmarshal(b, &todos) != nil {
		return nil, false
	}
	entries := []sdk.PlanEntry{}
	for _, t := range todos {
		st := sdk.PlanEntryStatusPending
		if t.Done {
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: t.Text, Priority: sdk.PlanEntryPriorityMedium, Status: st})
	}
	return entries, true
}

// replay sends a loaded conversation as the editor would have seen it.
func (s *session) replay(ctx context.Context, history []llm.Message) {
	kinds := map[string]sdk.ToolKind{}
	for _, m := range history {
		switch m.Role {
		case llm.RoleUser:
			s.update(sdk.UpdateUserMessageText(m.Content))
			s.replayImages(m.Images)
		case llm.RoleAssistant:
			if m.Thinking != "" {
				s.update(sdk.UpdateAgentThoughtText(m.Thinking))
			}
			if m.Content != "" {
				s.say(m.Content)
			}
			for _, tc := range m.ToolCalls {
				kind := sdk.ToolKindOther
				if t, ok := s.tools.Get(tc.Name); ok {
					kind = toolKind(t.Kind())
				}
				kinds[tc.ID] = kind
				s.update(sdk.StartToolCall(sdk.ToolCallId(tc.ID), tc.Name, sdk.WithStartKind(kind),
					sdk.WithStartStatus(sdk.ToolCallStatusCompleted), sdk.WithStartRawInput(argsValue(tc.Arguments))))
			}
		case llm.RoleTool:
			s.update(sdk.UpdateToolCall(sdk.ToolCallId(m.ToolCallID), sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted),
				sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(trimLines(m.Content)))})))
		}
	}
}
