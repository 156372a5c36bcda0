package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/runtime"
)

// A hung MCP server (it reads stdin and never answers initialize) next to
// a healthy one (python, one tool: echo), in sessions: nothing but a first
// prompt waits for it. The tests tell "returned long before the
// connection timeout" from "waited for it" with a wide margin: the
// timeout is 60 s and "long before" is under 30 s.

// hungServerTimeout is mcp.connectionTimeout in the tests that must not
// wait for the hung server.
const hungServerTimeout = 60 * time.Second

// hungProfile writes the user profile: the healthy server "good" and the
// hung server "hang" (which creates hang-started in the workspace when it
// starts), with mcp.connectionTimeout timeout.
func hungProfile(t *testing.T, e *sessionEnv, timeout time.Duration) {
	t.Helper()
	good, hang := hungServerScripts(t, e)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
policy: defaultAction: "allow"
mcp: {
	connectionTimeout: `+strconv.FormatInt(timeout.Milliseconds(), 10)+`
	servers: {
		good: {command: "python3", args: ["`+good+`"]}
		hang: {command: "python3", args: ["`+hang+`", "`+filepath.Join(e.ws, "hang-started")+`"]}
	}
}
`)
}

// hungServerScripts writes the two servers' scripts into OLLM_HOME and
// returns their paths.
func hungServerScripts(t *testing.T, e *sessionEnv) (good, hang string) {
	t.Helper()
	good, hang = filepath.Join(e.home, "good.py"), filepath.Join(e.home, "hang.py")
	e.write(good, `import json, sys

def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()

for line in sys.stdin:
    req = json.loads(line)
    method, rid = req.get("method"), req.get("id")
    if rid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-06-18",
              "capabilities": {"tools": {}}, "serverInfo": {"name": "good", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [{"name": "echo", "description": "Echo.",
              "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "echo: " + req["params"]["arguments"]["text"]}]}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no " + method}})
`)
	e.write(hang, `import sys
open(sys.argv[1], "w").close()
for line in sys.stdin:
    pass
`)
	return good, hang
}

// waitExists waits (bounded by the test's deadline) until path exists.
func waitExists(t *testing.T, path string) {
	t.Helper()
	for !fileExists(path) {
		time.Sleep(20 * time.Millisecond)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func stateOf(rt *runtime.Runtime, name string) mcp.State {
	st, _ := rt.ServerStatus(name)
	return st.State
}

// The runtime a TUI session runs on (runtime.New, then the agent session
// straight away; the TUI never calls WaitServers) is ready while the hung
// server connects, and a turn uses the healthy server's tool meanwhile.
func TestSessionDoesNotWaitForAHungServer(t *testing.T) {
	e := newSessionEnv(t)
	hungProfile(t, e, hungServerTimeout)
	start := time.Now()
	rt, err := e.f.NewRuntime(context.Background(), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	if d := time.Since(start); d > hungServerTimeout/2 {
		t.Fatalf("the runtime took %v to start: it waited for the hung server", d)
	}
	waitExists(t, filepath.Join(e.ws, "hang-started"))
	for stateOf(rt, "good") != mcp.StateReady {
		if s := stateOf(rt, "good"); s == mcp.StateFailed {
			t.Fatalf("the healthy server failed: %+v", rt.MCPStatus())
		}
		time.Sleep(20 * time.Millisecond)
	}

	s := e.session(rt)
	e.srv.Reply(llmtest.ToolCall("echo", map[string]any{"text": "meanwhile"}))
	e.srv.Reply(llmtest.Text("done"))
	rep, err := s.Run(context.Background(), "echo meanwhile")
	if err != nil || rep.Text != "done" {
		t.Fatalf("turn: %+v %v", rep, err)
	}
	reqs := e.srv.Requests()
	if !slices.Contains(toolNames(reqs[0]), "echo") {
		t.Errorf("the model was not offered the healthy server's tool: %v", toolNames(reqs[0]))
	}
	last := reqs[len(reqs)-1].Messages
	if m := last[len(last)-1]; m.Role != "tool" || !strings.Contains(m.Content, "echo: meanwhile") {
		t.Errorf("the tool result: %+v", m)
	}
	if st := stateOf(rt, "hang"); st != mcp.StateConnecting {
		t.Errorf("the hung server is %s, want still connecting", st)
	}
	if d := time.Since(start); d > hungServerTimeout/2 {
		t.Fatalf("the turn ended %v after the start: it waited for the hung server", d)
	}
}

// ACP: session/new returns while the hung server connects; the first
// prompt waits for the servers, and once the healthy one is ready a
// notice (a thought) names the hung one, its timeout and how to skip it.
// Cancelled, the prompt ends; the next prompt does not wait and uses the
// healthy server's tool while the hung one still connects.
func TestACPSessionNewDoesNotWaitForAHungServer(t *testing.T) {
	e := newSessionEnv(t)
	hungProfile(t, e, hungServerTimeout)
	ctx := context.Background()
	c := newACPClient()
	conn := startACP(t, e, c, false)
	start := time.Now()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > hungServerTimeout/2 {
		t.Fatalf("session/new took %v: it waited for the hung server", d)
	}
	waitExists(t, filepath.Join(e.ws, "hang-started"))

	type result struct {
		pr  sdk.PromptResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("hi")})
		done <- result{pr, err}
	}()
	want := `notice: waiting for MCP server "hang" (connecting for `
	deadline := time.After(hungServerTimeout / 2)
	for {
		c.mu.Lock()
		found, changed := strings.Contains(thoughtText(c.updates), want), c.changed
		c.mu.Unlock()
		if found {
			break
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no notice %q within %v:\n%s", want, hungServerTimeout/2, thoughtText(c.take()))
		}
	}
	th := thoughtText(c.take())
	if !strings.Contains(th, "; gives up at mcp.connectionTimeout 60s; set enabled: false on it (mcp: overrides: \"hang\": enabled: false) or lower mcp.connectionTimeout)") ||
		strings.Contains(th, `MCP server "good"`) {
		t.Errorf("the notice: %q", th)
	}
	if err := conn.Cancel(ctx, sdk.CancelNotification{SessionId: ns.SessionId}); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.pr.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("the cancelled first prompt: %+v %v", r.pr, r.err)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Fatalf("the model got %d requests before the servers settled", n)
	}

	e.srv.Reply(llmtest.ToolCall("echo", map[string]any{"text": "meanwhile"}))
	e.srv.Reply(llmtest.Text("it said meanwhile"))
	pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("echo meanwhile")})
	if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("second prompt: %+v %v", pr, err)
	}
	if got := agentText(c.take()); got != "it said meanwhile" {
		t.Errorf("answer %q", got)
	}
	if tools := toolNames(e.srv.Requests()[0]); !slices.Contains(tools, "echo") {
		t.Errorf("the model was not offered the healthy server's tool: %v", tools)
	}
	if d := time.Since(start); d > hungServerTimeout/2 {
		t.Fatalf("the prompts ended %v after session/new: something waited for the hung server", d)
	}
}

// ACP's first prompt gives up on a hung server at mcp.connectionTimeout:
// the profile's hung server and a hung server the editor passes (started
// with the others, in the background) are named in notices, then time out
// with warnings, and the prompt goes on with the healthy server's tool.
func TestACPFirstPromptGivesUpOnAHungServer(t *testing.T) {
	e := newSessionEnv(t)
	hungProfile(t, e, 3*time.Second)
	_, hang := hungServerScripts(t, e)
	ctx := context.Background()
	c := newACPClient()
	c.answers = []string{"approve_session"}
	conn := startACP(t, e, c, false)
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "edhang", Command: "python3", Args: []string{hang, filepath.Join(e.ws, "edhang-started")}, Env: []sdk.EnvVariable{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Reply(llmtest.ToolCall("echo", map[string]any{"text": "hi"}))
	e.srv.Reply(llmtest.Text("it said hi"))
	pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("echo hi")})
	if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	ups := c.take()
	th := thoughtText(ups)
	for _, want := range []string{
		`notice: waiting for MCP server "hang" (connecting for `,
		`notice: waiting for MCP server "edhang" (connecting for `,
		"; gives up at mcp.connectionTimeout 3s; remove it from the editor's MCP settings or lower mcp.connectionTimeout)",
		"warning: MCP server hang: ", "warning: MCP server edhang: ", "no answer within 3s (mcp.connectionTimeout)",
	} {
		if !strings.Contains(th, want) {
			t.Errorf("the editor was not told %q:\n%s", want, th)
		}
	}
	if got := agentText(ups); got != "it said hi" {
		t.Errorf("answer %q", got)
	}
	if !fileExists(filepath.Join(e.ws, "edhang-started")) {
		t.Error("the editor's server never started")
	}
	if tools := toolNames(e.srv.Requests()[0]); !slices.Contains(tools, "echo") {
		t.Errorf("the model was not offered the healthy server's tool: %v", tools)
	}
}

// /reload waits for the servers (its stats count ready and failed ones),
// and, like a first prompt, names a hung one in a notice before it gives
// up on it at mcp.connectionTimeout.
func TestReloadNamesAHungServer(t *testing.T) {
	e := newSessionEnv(t)
	var mu sync.Mutex
	var notices []string
	rt := e.runtime(runtime.Options{OnNotice: func(s string) {
		mu.Lock()
		notices = append(notices, s)
		mu.Unlock()
	}})
	s := e.session(rt)
	hungProfile(t, e, 3*time.Second)
	st, err := reloadSession(context.Background(), rt, s)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	told := strings.Join(notices, "\n")
	mu.Unlock()
	if !strings.Contains(told, `waiting for MCP server "hang" (connecting for `) || !strings.Contains(told, "gives up at mcp.connectionTimeout 3s") {
		t.Errorf("notices: %q", told)
	}
	if got := strings.Join(st.Errors, "\n"); !strings.Contains(got, "MCP server hang: ") || !strings.Contains(got, "no answer within 3s") {
		t.Errorf("reload errors: %q", got)
	}
	if stateOf(rt, "good") != mcp.StateReady {
		t.Errorf("the healthy server after the reload: %+v", rt.MCPStatus())
	}
}
