package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// acpClient is an editor as the Go SDK's client side: it records every
// session/update, answers permission requests with the next queued option
// (or as answer decides) and keeps file buffers the agent reads and
// writes through fs/*.
type acpClient struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every update
	updates []sdk.SessionNotification
	perms   []sdk.RequestPermissionRequest
	answers []string // option ids, in order
	buffers map[string]string
	writes  []sdk.WriteTextFileRequest
	reads   []string
}

func newACPClient() *acpClient {
	return &acpClient{changed: make(chan struct{}), buffers: map[string]string{}}
}

func (c *acpClient) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *acpClient) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	c.notify()
	return nil
}

func (c *acpClient) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	var id string
	if len(c.answers) > 0 {
		id, c.answers = c.answers[0], c.answers[1:]
	}
	c.notify()
	c.mu.Unlock()
	if id == "" { // no answer queued: the editor dismissed the prompt
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id), Outcome: "selected"}}}, nil
}

func (c *acpClient) ReadTextFile(ctx context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, p.Path)
	if b, ok := c.buffers[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: b}, nil
	}
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return sdk.ReadTextFileResponse{Content: string(b)}, nil
}

func (c *acpClient) WriteTextFile(ctx context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, p)
	c.buffers[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("no terminals")
}
func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("no terminals")
}
func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("no terminals")
}
func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("no terminals")
}
func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("no terminals")
}

// waitFor blocks until ok holds over the updates and permission requests
// received so far (the test's own deadline bounds it).
func (c *acpClient) waitFor(ok func(updates []sdk.SessionNotification, perms []sdk.RequestPermissionRequest) bool) {
	for {
		c.mu.Lock()
		done, ch := ok(c.updates, c.perms), c.changed
		c.mu.Unlock()
		if done {
			return
		}
		<-ch
	}
}

// take returns the updates so far and forgets them.
func (c *acpClient) take() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.updates
	c.updates = nil
	return out
}

// acpConn runs `ollm acp` in the test process on pipes, as an editor
// would start it, and connects the client to it.
type acpConn struct {
	*sdk.ClientSideConnection
	stderr *syncBuffer
	init   sdk.InitializeResponse
}

func startACP(t *testing.T, e *sessionEnv, c *acpClient, fs bool, args ...string) *acpConn {
	t.Helper()
	return connectACP(t, e.f, c, fs, args...)
}

// connectACP runs `ollm acp` with base's environment and workspace.
func connectACP(t testing.TB, base *Factory, c *acpClient, fs bool, args ...string) *acpConn {
	t.Helper()
	return connectACPWith(t, base, c, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: fs, WriteTextFile: fs}}, args...)
}

// connectACPWith is connectACP with any client and its capabilities.
func connectACPWith(t testing.TB, base *Factory, c sdk.Client, caps sdk.ClientCapabilities, args ...string) *acpConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	f := &Factory{IO: &IOStreams{In: inR, Out: outW, ErrOut: stderr}, Getenv: base.Getenv, Environ: base.Environ,
		Getwd: base.Getwd, Now: base.Now, Context: ctx}
	done := make(chan ExitCode, 1)
	go func() {
		done <- Run(f, append([]string{"acp"}, args...))
		outW.Close()
	}()
	conn := sdk.NewClientSideConnection(c, inW, outR)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() {
		inW.Close() // the editor goes away: every session closes
		if code := <-done; code != ExitOK {
			t.Errorf("ollm acp exited %d: %s", code, stderr.String())
		}
		cancel()
	})
	init, err := conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	if !init.AgentCapabilities.LoadSession || init.AgentInfo == nil || init.AgentInfo.Name != "ollm" || init.ProtocolVersion != sdk.ProtocolVersionNumber {
		t.Fatalf("initialize: %+v", init)
	}
	return &acpConn{ClientSideConnection: conn, stderr: stderr, init: init}
}

func text(blocks ...string) []sdk.ContentBlock {
	var out []sdk.ContentBlock
	for _, b := range blocks {
		out = append(out, sdk.TextBlock(b))
	}
	return out
}

// agentText is the agent's streamed answer among updates.
func agentText(ups []sdk.SessionNotification) string {
	var b strings.Builder
	for _, u := range ups {
		if m := u.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
			b.WriteString(m.Content.Text.Text)
		}
	}
	return b.String()
}

func toolCalls(ups []sdk.SessionNotification) []*sdk.SessionUpdateToolCall {
	var out []*sdk.SessionUpdateToolCall
	for _, u := range ups {
		if u.Update.ToolCall != nil {
			out = append(out, u.Update.ToolCall)
		}
	}
	return out
}

// lastStatus is the status the editor shows for a tool call.
func lastStatus(ups []sdk.SessionNotification, id sdk.ToolCallId) sdk.ToolCallStatus {
	var st sdk.ToolCallStatus
	for _, u := range ups {
		if tc := u.Update.ToolCall; tc != nil && tc.ToolCallId == id {
			st = tc.Status
		}
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == id && tu.Status != nil {
			st = *tu.Status
		}
	}
	return st
}

func toolOutput(ups []sdk.SessionNotification, id sdk.ToolCallId) string {
	var out string
	for _, u := range ups {
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == id {
			for _, c := range tu.Content {
				if c.Content != nil && c.Content.Content.Text != nil {
					out = c.Content.Content.Text.Text
				}
			}
		}
	}
	return out
}

// A session on the editor's workspace: a prompt streams text and a
// write_file call with its kind, location and diff; the policy's ask is the
// editor's permission prompt, answered allow once, then reject, then
// allow always (saved to the user profile); write_todos's list arrives as
// the plan; skills are slash commands; the session is loaded again in a
// new connection with its history.
func TestACPSessionPromptPermissionsAndLoad(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
skills: [{name: "changelog", description: "Write a changelog entry", prompt: "Write a changelog entry for {change}."}]
`)
	c := newACPClient()
	conn := startACP(t, e, c, false)
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if ns.Modes == nil || ns.Modes.CurrentModeId != "default" || len(ns.Modes.AvailableModes) != 4 {
		t.Fatalf("modes: %+v", ns.Modes)
	}
	c.waitFor(func(ups []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
		for _, u := range ups {
			if a := u.Update.AvailableCommandsUpdate; a != nil {
				return len(a.AvailableCommands) == 1 && a.AvailableCommands[0].Name == "changelog" &&
					a.AvailableCommands[0].Input != nil && a.AvailableCommands[0].Input.Unstructured.Hint == "change"
			}
		}
		return false
	})
	c.take()

	// Allow once: the file is written, the editor saw the diff.
	e.srv.Reply(llmtest.Thinking("a new file"), llmtest.Text("I will ", "write it."),
		llmtest.ToolCallWithID("call-1", "write_file", map[string]any{"path": "a.txt", "content": "hello\n"}))
	e.srv.Reply(llmtest.Text("Written."))
	c.answers = []string{"allow_once"}
	pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("write a.txt")})
	if err != nil {
		t.Fatal(err)
	}
	ups := c.take()
	if pr.StopReason != sdk.StopReasonEndTurn || agentText(ups) != "I will write it.Written." {
		t.Fatalf("stop %s, text %q", pr.StopReason, agentText(ups))
	}
	thought := false
	for _, u := range ups {
		thought = thought || (u.Update.AgentThoughtChunk != nil && u.Update.AgentThoughtChunk.Content.Text.Text == "a new file")
	}
	if !thought {
		t.Error("no agent_thought_chunk with the model's thinking")
	}
	calls := toolCalls(ups)
	if len(calls) != 1 {
		t.Fatalf("tool calls: %+v", calls)
	}
	tc, path := calls[0], filepath.Join(e.ws, "a.txt")
	if tc.ToolCallId != "call-1" || tc.Kind != sdk.ToolKindEdit || tc.Status != sdk.ToolCallStatusPending || tc.Title != "Create a.txt" ||
		len(tc.Locations) != 1 || tc.Locations[0].Path != path {
		t.Fatalf("tool_call: %+v", tc)
	}
	if len(tc.Content) != 1 || tc.Content[0].Diff == nil || tc.Content[0].Diff.Path != path || tc.Content[0].Diff.NewText != "hello\n" || tc.Content[0].Diff.OldText != nil {
		t.Fatalf("tool_call content is not the diff of a new file: %+v", tc.Content)
	}
	if st := lastStatus(ups, "call-1"); st != sdk.ToolCallStatusCompleted {
		t.Fatalf("status %s", st)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "hello\n" {
		t.Fatalf("a.txt: %q %v", b, err)
	}
	if len(c.perms) != 1 {
		t.Fatalf("permission requests: %d", len(c.perms))
	}
	p := c.perms[0]
	var opts []string
	for _, o := range p.Options {
		opts = append(opts, string(o.OptionId)+":"+string(o.Kind))
	}
	if p.ToolCall.ToolCallId != "call-1" || strings.Join(opts, " ") != "allow_once:allow_once allow_always:allow_always deny:reject_once" ||
		len(p.ToolCall.Content) != 2 || p.ToolCall.Content[0].Diff == nil || !strings.Contains(p.ToolCall.Content[1].Content.Content.Text.Text, "Asked by the default action") {
		t.Fatalf("permission request: %+v %s %q", p.ToolCall, opts, p.ToolCall.Content[1].Content.Content.Text.Text)
	}

	// Reject: nothing is written and the model is told.
	e.srv.Reply(llmtest.ToolCallWithID("call-2", "write_file", map[string]any{"path": "b.txt", "content": "no\n"}))
	e.srv.Reply(llmtest.Text("Understood."))
	c.answers = []string{"deny"}
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("write b.txt")}); err != nil {
		t.Fatal(err)
	}
	ups = c.take()
	if st := lastStatus(ups, "call-2"); st != sdk.ToolCallStatusFailed {
		t.Fatalf("rejected call: status %s", st)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("b.txt was written: %v", err)
	}
	if last := e.srv.LastRequest(); !strings.Contains(last.Messages[len(last.Messages)-1].Content, "the user denied this call") {
		t.Fatalf("the model was not told: %+v", last.Messages[len(last.Messages)-1])
	}

	// Allow always: saved to the user profile, as the TUI's "always".
	e.srv.Reply(llmtest.ToolCallWithID("call-3", "write_file", map[string]any{"path": "c.txt", "content": "yes\n"}),
		llmtest.ToolCallWithID("call-4", "write_todos", map[string]any{"action": "add", "text": "review c.txt"}))
	e.srv.Reply(llmtest.Text("Done."))
	c.answers = []string{"allow_always", "allow_once"}
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("write c.txt")}); err != nil {
		t.Fatal(err)
	}
	ups = c.take()
	if _, err := os.Stat(filepath.Join(e.ws, "c.txt")); err != nil {
		t.Fatal(err)
	}
	prof, _ := os.ReadFile(filepath.Join(e.home, "profile.cue"))
	if !regexp.MustCompile(`tool:\s*"write_file"`).Match(prof) || !strings.Contains(string(prof), `"allow"`) {
		t.Fatalf("no allow rule saved to the user profile:\n%s", prof)
	}
	var plan *sdk.SessionUpdatePlan
	for _, u := range ups {
		if u.Update.Plan != nil {
			plan = u.Update.Plan
		}
	}
	if plan == nil || len(plan.Entries) != 1 || plan.Entries[0].Content != "review c.txt" || plan.Entries[0].Status != sdk.PlanEntryStatusPending {
		t.Fatalf("plan: %+v", plan)
	}
	for _, tc := range toolCalls(ups) {
		if tc.ToolCallId == "call-4" && tc.Kind != sdk.ToolKindThink {
			t.Fatalf("write_todos kind %s", tc.Kind)
		}
	}

	// A skill as a slash command.
	e.srv.Reply(llmtest.Text("Entry written."))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("/changelog the ACP agent")}); err != nil {
		t.Fatal(err)
	}
	if last := e.srv.LastRequest(); last.Messages[len(last.Messages)-1].Content != "Write a changelog entry for the ACP agent." {
		t.Fatalf("skill prompt: %q", last.Messages[len(last.Messages)-1].Content)
	}
	c.take()

	// Another connection (the editor restarted) loads the session.
	c2 := newACPClient()
	conn2 := startACP(t, e, c2, false)
	if _, err := conn2.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: ns.SessionId, Cwd: e.ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	ups = c2.take()
	var users []string
	for _, u := range ups {
		if m := u.Update.UserMessageChunk; m != nil {
			users = append(users, m.Content.Text.Text)
		}
	}
	if strings.Join(users, "|") != "write a.txt|write b.txt|write c.txt|Write a changelog entry for the ACP agent." ||
		!strings.Contains(agentText(ups), "Written.") || lastStatus(ups, "call-1") != sdk.ToolCallStatusCompleted {
		t.Fatalf("replay: users %q, text %q", users, agentText(ups))
	}
	e.srv.Reply(llmtest.Text("Still here."))
	if _, err := conn2.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("and now?")}); err != nil {
		t.Fatal(err)
	}
	if last := e.srv.LastRequest(); len(last.Messages) < 10 || last.Messages[1].Content != "write a.txt" {
		t.Fatalf("the loaded session lost its history: %d messages", len(last.Messages))
	}
}

// session/cancel stops a running shell command: the turn ends cancelled
// and the command's process is gone. The session is in yolo mode (set by
// the editor), so the shell runs without asking.
func TestACPCancelStopsShell(t *testing.T) {
	e := newSessionEnv(t)
	c := newACPClient()
	conn := startACP(t, e, c, false)
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Reply(llmtest.ToolCallWithID("sh-1", "shell", map[string]any{"command": "echo pid $$; exec sleep 60"}))
	type result struct {
		r   sdk.PromptResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("wait a minute")})
		done <- result{r, err}
	}()
	var pid int
	c.waitFor(func(ups []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
		if m := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(toolOutput(ups, "sh-1")); m != nil {
			pid, _ = strconv.Atoi(m[1])
			return true
		}
		return false
	})
	if err := conn.Cancel(ctx, sdk.CancelNotification{SessionId: ns.SessionId}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err != nil || res.r.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt after cancel: %+v %v", res.r, res.err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the shell command (pid %d) still runs after the cancel: %v", pid, err)
	}
	modes := 0
	for _, u := range c.take() {
		if m := u.Update.CurrentModeUpdate; m != nil && m.CurrentModeId == "yolo" {
			modes++
		}
	}
	if modes != 1 {
		t.Fatalf("current_mode_update yolo: %d", modes)
	}
}

// With the editor's fs capabilities, read_file reads the editor's buffer
// (unsaved text included) and edit_file writes into it, not to disk; the
// call still passed the policy (auto_edit mode, set by the flag).
func TestACPFileEditThroughTheClient(t *testing.T) {
	e := newSessionEnv(t)
	path := filepath.Join(e.ws, "notes.txt")
	e.write(path, "one\ntwo\n")
	c := newACPClient()
	c.buffers[path] = "one\ntwo\nthree (unsaved)\n"
	conn := startACP(t, e, c, true, "--approval-mode", "auto_edit")
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if ns.Modes.CurrentModeId != "auto_edit" {
		t.Fatalf("mode %s", ns.Modes.CurrentModeId)
	}
	e.srv.Reply(llmtest.ToolCallWithID("r-1", "read_file", map[string]any{"path": "notes.txt"}))
	e.srv.Reply(llmtest.ToolCallWithID("e-1", "edit_file", map[string]any{"path": "notes.txt",
		"edits": []map[string]any{{"oldText": "two", "newText": "TWO"}}}))
	e.srv.Reply(llmtest.Text("Edited."))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("shout two")}); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.Requests()
	if got := reqs[1].Messages[len(reqs[1].Messages)-1].Content; got != "one\ntwo\nthree (unsaved)\n" {
		t.Fatalf("read_file did not read the editor's buffer: %q", got)
	}
	if len(c.writes) != 1 || c.writes[0].Path != path || c.writes[0].Content != "one\nTWO\nthree (unsaved)\n" {
		t.Fatalf("writes through the editor: %+v", c.writes)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\ntwo\n" {
		t.Fatalf("the file on disk changed: %q", b)
	}
	if len(c.perms) != 0 {
		t.Fatalf("auto_edit asked: %+v", c.perms)
	}
	ups := c.take()
	var diff *sdk.ToolCallContentDiff
	for _, tc := range toolCalls(ups) {
		if tc.ToolCallId == "e-1" && len(tc.Content) > 0 {
			diff = tc.Content[0].Diff
		}
	}
	if diff == nil || diff.OldText == nil || *diff.OldText != "one\ntwo\nthree (unsaved)\n" || diff.NewText != "one\nTWO\nthree (unsaved)\n" {
		t.Fatalf("edit diff: %+v", diff)
	}
	if st := lastStatus(ups, "e-1"); st != sdk.ToolCallStatusCompleted {
		t.Fatalf("edit status %s", st)
	}
}

// acpNpmDir is where `make deps` installed the npm packages the tests
// drive (OLLM_NPM_DIR, or .deps/npm above the test's directory).
func acpNpmDir(t *testing.T) string {
	t.Helper()
	dir := npmDir()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("@agentclientprotocol/sdk is not installed (%v); run make deps", err)
	}
	return dir
}

// The official TypeScript ACP SDK's client drives `ollm acp` (the real
// executable, started by node): a session is created, a prompt streams
// text and a write_file call with its diff, the permission prompt is
// answered allow once (the write goes through the editor's
// fs/write_text_file) and then reject, a cancel stops a running shell
// command, a restarted editor loads the session and goes on, and another
// lists the workspace's sessions and resumes it without a replay.
func TestACPTypeScriptClient(t *testing.T) {
	e := newSessionEnv(t)
	npm := acpNpmDir(t)
	ollm, err := exec.LookPath("ollm")
	if err != nil {
		t.Fatalf("the test binary as ollm: %v", err)
	}
	e.srv.Reply(llmtest.Text("Writing."), llmtest.ToolCallWithID("w-1", "write_file", map[string]any{"path": "a.txt", "content": "hello\n"}))
	e.srv.Reply(llmtest.Text("Written."))
	e.srv.Reply(llmtest.ToolCallWithID("w-2", "write_file", map[string]any{"path": "b.txt", "content": "no\n"}))
	e.srv.Reply(llmtest.Text("OK."))
	e.srv.Reply(llmtest.ToolCallWithID("sh-1", "shell", map[string]any{"command": "echo pid $$; exec sleep 60"}))
	e.srv.Reply(llmtest.Text("Still here."))
	e.srv.Reply(llmtest.Text("Resumed."))

	script, _ := filepath.Abs(filepath.Join("testdata", "acp", "client.mjs"))
	cmd := exec.Command("node", script, npm, ollm, e.ws)
	cmd.Dir = e.ws
	cmd.Env = append(e.f.Environ(), "HOME="+filepath.Join(filepath.Dir(e.home), "userhome"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, stderr.String())
	}
	var got struct {
		SessionID   string   `json:"sessionId"`
		Stops       []string `json:"stops"`
		Pid         int      `json:"pid"`
		ReplayUsers []string `json:"replayUsers"`
		Permissions []struct {
			ToolCallID string   `json:"toolCallId"`
			Options    []string `json:"options"`
			Diff       bool     `json:"diff"`
		} `json:"permissions"`
		Writes []struct {
			Path, Content string
		} `json:"writes"`
		Text       string `json:"text"`
		ReplayText string `json:"replayText"`
		ToolCalls  []struct {
			ID, Kind, Status string
			Diff             *struct {
				Path    string  `json:"path"`
				NewText string  `json:"newText"`
				OldText *string `json:"oldText"`
			} `json:"diff"`
			Locations []struct{ Path string } `json:"locations"`
		} `json:"toolCalls"`
		FinalStatus map[string]string `json:"finalStatus"`
		Listed      []struct {
			ID, Title, Cwd string
		} `json:"listed"`
		ResumeReplayed int      `json:"resumeReplayed"`
		NewConfig      []string `json:"newConfig"`
		ConfigMode     string   `json:"configMode"`
		Fork           struct {
			Different bool     `json:"different"`
			Mode      string   `json:"mode"`
			Options   []string `json:"options"`
		} `json:"fork"`
		ListedAfterFork int `json:"listedAfterFork"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s\n%s", err, out, stderr.String())
	}
	a := filepath.Join(e.ws, "a.txt")
	if strings.Join(got.Stops, " ") != "end_turn end_turn cancelled end_turn end_turn" {
		t.Errorf("stop reasons: %q", got.Stops)
	}
	if got.Text != "Writing.Written.OK." || got.ReplayText != "Writing.Written.OK.Still here." {
		t.Errorf("agent text: %q, after the load: %q", got.Text, got.ReplayText)
	}
	if len(got.ToolCalls) < 3 || got.ToolCalls[0].ID != "w-1" || got.ToolCalls[0].Kind != "edit" || got.ToolCalls[0].Status != "pending" ||
		got.ToolCalls[0].Diff == nil || got.ToolCalls[0].Diff.Path != a || got.ToolCalls[0].Diff.NewText != "hello\n" ||
		len(got.ToolCalls[0].Locations) != 1 || got.ToolCalls[0].Locations[0].Path != a || got.ToolCalls[2].Kind != "execute" {
		t.Errorf("tool calls: %+v", got.ToolCalls)
	}
	if got.FinalStatus["w-1"] != "completed" || got.FinalStatus["w-2"] != "failed" || got.FinalStatus["sh-1"] != "failed" {
		t.Errorf("final statuses: %v", got.FinalStatus)
	}
	if len(got.Permissions) != 2 || got.Permissions[0].ToolCallID != "w-1" || !got.Permissions[0].Diff ||
		strings.Join(got.Permissions[0].Options, " ") != "allow_once allow_always reject_once" {
		t.Errorf("permission requests: %+v", got.Permissions)
	}
	if len(got.Writes) != 1 || got.Writes[0].Path != a || got.Writes[0].Content != "hello\n" {
		t.Errorf("writes through fs/write_text_file: %+v", got.Writes)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("the rejected b.txt exists: %v", err)
	}
	if got.Pid == 0 {
		t.Error("the shell command's pid was not seen")
	} else if err := syscall.Kill(got.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the shell command (pid %d) still runs after the cancel: %v", got.Pid, err)
	}
	if strings.Join(got.ReplayUsers, "|") != "write a.txt|write b.txt|wait a minute" {
		t.Errorf("replayed user messages: %q", got.ReplayUsers)
	}
	if len(got.Listed) != 1 || got.Listed[0].ID != got.SessionID || got.Listed[0].Title != "write a.txt" || got.Listed[0].Cwd != e.ws {
		t.Errorf("session/list: %+v", got.Listed)
	}
	if got.ResumeReplayed != 0 {
		t.Errorf("session/resume replayed %d user messages", got.ResumeReplayed)
	}
	if strings.Join(got.NewConfig, ", ") != "model=test-model:latest [test-model:latest], mode=default [default auto_edit plan yolo]" {
		t.Errorf("session/new's config options: %q", got.NewConfig)
	}
	if got.ConfigMode != "plan" || !got.Fork.Different || got.Fork.Mode != "plan" || strings.Join(got.Fork.Options, " ") != "model mode" || got.ListedAfterFork != 2 {
		t.Errorf("set_config_option and fork: mode %q, fork %+v, listed after %d", got.ConfigMode, got.Fork, got.ListedAfterFork)
	}
	last := e.srv.LastRequest()
	var users []string
	for _, m := range last.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if strings.Join(users, "|") != "write a.txt|write b.txt|wait a minute|still there?|resumed" {
		t.Errorf("the loaded and resumed session's prompts: %q", users)
	}
}

// BenchmarkACPSessionNew is an editor's session/new until the session is
// ready for its first prompt (runtime wired from the workspace's cached
// generation, the agent session and its transcript created), measured
// at the client, with no extensions and with 50 (3 hooks, 3 settings and
// a skill each); the model list of the config options included.
func BenchmarkACPSessionNew(b *testing.B) {
	for _, n := range []int{0, 50} {
		b.Run(fmt.Sprintf("extensions-%d", n), func(b *testing.B) {
			f := benchWorkspace(b, n, 0)
			// A fake Ollama answers the model list of the config options.
			srv, getenv := llmtest.NewOllama(b), f.Getenv
			f.Getenv = func(k string) string {
				if k == "OLLAMA_HOST" {
					return srv.URL
				}
				return getenv(k)
			}
			ws, _ := f.Getwd()
			c := newACPClient()
			conn := connectACP(b, f, c, false)
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
				if err != nil {
					b.Fatal(err)
				}
				if i == 0 && len(ns.ConfigOptions) != 2 {
					b.Fatalf("config options: %+v", ns.ConfigOptions)
				}
				b.StopTimer()
				if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: ns.SessionId}); err != nil {
					b.Fatal(err)
				}
				c.take()
				b.StartTimer()
			}
		})
	}
}

// Hooks that need an approval (here two --ext extensions' hooks) are asked
// about through the editor's permission prompt before the first prompt,
// never run silently: the approved one runs, the refused one does not and
// is not asked about again.
func TestACPHookApprovalThroughTheEditor(t *testing.T) {
	e := newSessionEnv(t)
	flagExt := filepath.Join(t.TempDir(), "exts")
	e.extension(flagExt, "fx", "")
	e.extension(flagExt, "fy", "")
	c := newACPClient()
	conn := startACP(t, e, c, false, "--ext", filepath.Join(flagExt, "fx"), "--ext", filepath.Join(flagExt, "fy"))
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	c.answers = []string{"approve", "refuse"}
	e.srv.Reply(llmtest.Text("ok"))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("go")}); err != nil {
		t.Fatal(err)
	}
	if len(c.perms) != 2 || !strings.Contains(*c.perms[0].ToolCall.Title, "Run hook fx/fx (before_agent, flag)?") ||
		!strings.Contains(*c.perms[1].ToolCall.Title, "fy/fy") {
		t.Fatalf("permission requests: %+v", c.perms)
	}
	if got := strings.Join(e.hookLog(), " "); got != "fx" {
		t.Fatalf("hooks that ran = %q, want fx only", got)
	}
	e.srv.Reply(llmtest.Text("ok"))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("again")}); err != nil {
		t.Fatal(err)
	}
	if len(c.perms) != 2 || strings.Join(e.hookLog(), " ") != "fx fx" {
		t.Fatalf("asked %d times in all; log %v", len(c.perms), e.hookLog())
	}
}

// A workspace MCP server of an unapproved workspace is held back; the
// editor is asked before the first prompt, and once approved its tools
// are offered to the model in that prompt; the editor is told that the
// workspace is not approved (one line: the count, the file, `ollm trust`).
func TestACPWorkspaceServerApprovedThroughTheEditor(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.ws, "ollm.cue"), `mcp: servers: everything: {command: "node", args: ["`+everythingScript(t)+`", "stdio"]}
`)
	c := newACPClient()
	conn := startACP(t, e, c, false)
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	c.answers = []string{"approve"}
	e.srv.Reply(llmtest.Text("ok"))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("hi")}); err != nil {
		t.Fatal(err)
	}
	if len(c.perms) != 1 || *c.perms[0].ToolCall.Title != "Start workspace MCP server everything?" {
		t.Fatalf("permission requests: %+v", c.perms)
	}
	if names := toolNames(e.srv.LastRequest()); !slices.Contains(names, "echo") {
		t.Fatalf("tools after approval = %v", names)
	}
	var thoughts strings.Builder
	for _, u := range c.take() {
		if th := u.Update.AgentThoughtChunk; th != nil {
			thoughts.WriteString(th.Content.Text.Text)
		}
	}
	for _, want := range []string{"workspace not approved: 1 value held back (ollm.cue): `ollm trust` reviews and approves them", "MCP server everything ready"} {
		if !strings.Contains(thoughts.String(), want) {
			t.Errorf("the editor was not told %q:\n%s", want, thoughts.String())
		}
	}
}

// session/close ends a running turn (its shell command with it). A
// prompt sent while another runs is refused:
// TestACPSecondPromptWhileOneRunsIsRefused.
func TestACPCloseEndsTheRunningTurn(t *testing.T) {
	e := newSessionEnv(t)
	c := newACPClient()
	conn := startACP(t, e, c, false, "--approval-mode", "yolo")
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	started := func(id sdk.ToolCallId) {
		c.waitFor(func(ups []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
			return strings.Contains(toolOutput(ups, id), "pid ")
		})
	}
	type result struct {
		r   sdk.PromptResponse
		err error
	}
	prompt := func(s string) chan result {
		done := make(chan result, 1)
		go func() {
			r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text(s)})
			done <- result{r, err}
		}()
		return done
	}
	e.srv.Reply(llmtest.ToolCallWithID("sh-2", "shell", map[string]any{"command": "echo pid $$; exec sleep 60"}))
	third := prompt("three")
	started("sh-2")
	if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: ns.SessionId}); err != nil {
		t.Fatal(err)
	}
	if r := <-third; r.err != nil || r.r.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("the prompt running at session/close: %+v %v", r.r, r.err)
	}
}
