package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/runtime"
)

// Nothing waits (issue 29): a first prompt goes out with the tools the
// tool cache holds for a stdio server still connecting. The servers here
// are python processes held at initialize until the test creates their
// gate file; each writes a marker when it answers initialize, so the
// order of "the model got the request" and "the server answered" is seen
// without timing anything. The time bounds below only keep a broken build
// from hanging the test; a broken build then fails on the order.

const nowaitSecret = "s3cret-token-value"

// gatedServers writes a python server script into OLLM_HOME and a
// profile with one server per name (its tools the names in tools[name]),
// their gates open. The servers' tools are read from a file at each
// tools/list, so they can change without the server's configuration.
// Each writes <name>-started in the workspace when its process starts,
// and exits at once if <name>-fail exists there.
func gatedServers(t *testing.T, e *sessionEnv, tools map[string][]string) {
	t.Helper()
	script := filepath.Join(e.home, "gated.py")
	e.write(script, `import json, os, sys, time
name, d = sys.argv[1], sys.argv[2]
def p(s):
    return os.path.join(d, name + "-" + s)

def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()

open(p("started"), "w").close()
if os.path.exists(p("fail")):
    sys.exit("told to fail")

for line in sys.stdin:
    req = json.loads(line)
    method, rid = req.get("method"), req.get("id")
    if rid is None:
        continue
    if method == "initialize":
        while not os.path.exists(p("gate")):
            time.sleep(0.01)
        open(p("answered"), "w").close()
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-06-18",
              "capabilities": {"tools": {}}, "serverInfo": {"name": "gated", "version": "1"}}})
    elif method == "tools/list":
        names = json.load(open(p("tools.json")))
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [{"name": n, "description": "Tool " + n + ".",
              "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}} for n in names]}})
    elif method == "tools/call":
        n = req["params"]["name"]
        if n not in json.load(open(p("tools.json"))):
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "unknown tool " + n}})
            continue
        with open(p("calls"), "a") as f:
            f.write(n + "\n")
        text = req["params"].get("arguments", {}).get("text", "")
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": name + ": " + n + ": " + text}]}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no " + method}})
`)
	var servers strings.Builder
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range tools {
			if !yield(n) {
				return
			}
		}
	}) {
		servers.WriteString("\t\t" + name + `: {command: "python3", args: ["` + script + `", "` + name + `", "` + e.ws + `"], env: {TOKEN: "` + nowaitSecret + `"}}` + "\n")
		setTools(t, e, name, tools[name]...)
		e.write(gatePath(e, name), "")
	}
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
policy: defaultAction: "allow"
mcp: {
	connectionTimeout: 60000
	servers: {
`+servers.String()+`	}
}
`)
}

// The servers' files are in the workspace, which their sandbox lets
// them write.
func gatePath(e *sessionEnv, name string) string { return filepath.Join(e.ws, name+"-gate") }
func answered(e *sessionEnv, name string) string { return filepath.Join(e.ws, name+"-answered") }

func setTools(t *testing.T, e *sessionEnv, name string, tools ...string) {
	t.Helper()
	b, _ := json.Marshal(tools)
	e.write(filepath.Join(e.ws, name+"-tools.json"), string(b))
}

// closeGates holds every server at initialize from now on.
func closeGates(t *testing.T, e *sessionEnv, names ...string) {
	t.Helper()
	for _, n := range names {
		for _, p := range []string{gatePath(e, n), answered(e, n)} {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
}

// runPrompt runs `ollm run -p prompt` (runRun, as the command does).
func runPrompt(t *testing.T, e *sessionEnv, prompt string) (string, error) {
	t.Helper()
	io, _, out, errOut := TestIO()
	err := runRun(context.Background(), &RunOptions{IO: io, F: e.f, Prompt: prompt, Format: formatText})
	return out.String() + errOut.String(), err
}

// waitOrOpen waits for ch; if it does not come while the servers are held
// (a build that waits for them), it opens their gates so the test ends and
// fails on the order instead of hanging.
func waitOrOpen(t *testing.T, e *sessionEnv, ch <-chan struct{}, names ...string) {
	t.Helper()
	select {
	case <-ch:
		return
	case <-time.After(20 * time.Second):
	}
	t.Errorf("the first request did not go out while servers %v were held at initialize", names)
	for _, n := range names {
		e.write(gatePath(e, n), "")
	}
	<-ch
}

// `ollm run -p`: the first run has no cache entry and waits for the
// server as before; the second sends its first request while the server
// is held at initialize, offering the cached tools. The server then comes
// up without one of them: the model's call to it is refused naming server
// and tool (the server never gets it), and the next request carries the
// server's own list. The cache file holds no secret and is private.
func TestRunOffersCachedToolsWhileServersConnect(t *testing.T) {
	e := newSessionEnv(t)
	gatedServers(t, e, map[string][]string{"a": {"a_echo", "a_old"}})

	e.srv.Reply(llmtest.Text("one"))
	out, err := runPrompt(t, e, "first")
	if err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	if got := toolNames(e.srv.Requests()[0]); !slices.Contains(got, "a_old") || !slices.Contains(got, "a_echo") {
		t.Fatalf("first run (no cache): the request lacks the server's tools: %v\n%s", got, out)
	}
	checkToolCacheFiles(t, e)

	closeGates(t, e, "a")
	setTools(t, e, "a", "a_echo", "a_new")
	reached, release := make(chan struct{}), make(chan struct{})
	e.srv.Reply(llmtest.Signal(reached), llmtest.Wait(release), llmtest.ToolCall("a_old", map[string]any{"text": "x"}))
	e.srv.Reply(llmtest.Text("done"))
	done := make(chan error, 1)
	out = ""
	go func() {
		var err error
		out, err = runPrompt(t, e, "second")
		done <- err
	}()
	waitOrOpen(t, e, reached, "a")
	if fileExists(answered(e, "a")) {
		t.Error("the server had answered initialize before the first request went out: the prompt waited for it")
	}
	reqs := e.srv.Requests()
	first := reqs[len(reqs)-1]
	if got := toolNames(first); !slices.Contains(got, "a_old") || !slices.Contains(got, "a_echo") {
		t.Errorf("the first request does not carry the cached tools: %v", got)
	}
	e.write(gatePath(e, "a"), "")
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	reqs = e.srv.Requests()
	last := reqs[len(reqs)-1]
	if got := toolNames(last); slices.Contains(got, "a_old") || !slices.Contains(got, "a_new") {
		t.Errorf("the request after the server connected does not carry its own list: %v", got)
	}
	msg := last.Messages[len(last.Messages)-1]
	if msg.Role != "tool" || !strings.Contains(msg.Content, `MCP server "a" has no tool "a_old"`) {
		t.Errorf("the call to the tool the server dropped: %+v", msg)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "a-calls")); strings.Contains(string(b), "a_old") {
		t.Errorf("the server got a call to a tool it does not have: %q", b)
	}
}

// checkToolCacheFiles: the runtime recorded the servers' tools under
// $OLLM_HOME/cache/mcp-tools, 0700 and 0600, without the server's
// environment values.
func checkToolCacheFiles(t *testing.T, e *sessionEnv) {
	t.Helper()
	dir := filepath.Join(e.home, "cache", "mcp-tools")
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatalf("no tool cache: %v", err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: mode %v, want 0700", dir, fi.Mode().Perm())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatal("the session recorded no tool cache entry")
	}
	for _, f := range files {
		fi, _ := os.Stat(f)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", f, fi.Mode().Perm())
		}
		if b, _ := os.ReadFile(f); strings.Contains(string(b), nowaitSecret) {
			t.Errorf("%s holds the server's environment value", f)
		}
	}
}

// A session (the runtime the TUI and ACP run on, with the first prompt's
// wait): a call to a cached tool of a server still connecting waits for
// that server, and only that one: the other stays held at initialize.
func TestCachedToolCallWaitsForItsServerOnly(t *testing.T) {
	e := newSessionEnv(t)
	gatedServers(t, e, map[string][]string{"a": {"a_echo"}, "b": {"b_echo"}})
	e.srv.Reply(llmtest.Text("one"))
	if out, err := runPrompt(t, e, "first"); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	closeGates(t, e, "a", "b")

	rt, err := e.f.NewRuntime(context.Background(), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		if _, err := rt.WaitServersNotify(context.Background(), nil); err != nil {
			t.Error(err)
		}
	}()
	waitOrOpen(t, e, waited, "a", "b")
	cfg := rt.AgentConfig()
	cfg.OnEvent = func(ev agent.Event) {
		// the gate decided and the call goes to the tool: only now may
		// server a answer initialize
		if ev.Type == agent.EvToolDecision && ev.Tool != nil && ev.Tool.Name == "a_echo" {
			e.write(gatePath(e, "a"), "")
		}
	}
	s, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	e.srv.Reply(llmtest.ToolCall("a_echo", map[string]any{"text": "hi"}))
	e.srv.Reply(llmtest.Text("done"))
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.Requests()
	if got := toolNames(reqs[len(reqs)-2]); !slices.Contains(got, "a_echo") || !slices.Contains(got, "b_echo") {
		t.Errorf("the first request lacks the cached tools: %v", got)
	}
	last := reqs[len(reqs)-1].Messages
	if m := last[len(last)-1]; m.Role != "tool" || !strings.Contains(m.Content, "a: a_echo: hi") {
		t.Errorf("the call to the connecting server's tool: %+v", m)
	}
	if fileExists(answered(e, "b")) || stateOf(rt, "b") != mcp.StateConnecting {
		t.Errorf("server b was waited for too (state %s)", stateOf(rt, "b"))
	}
}
