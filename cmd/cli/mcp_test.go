package cli

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ollm/ollm/cmd/cli/tui"
	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/runtime"
)

// everythingScript finds server-everything, installed by `make deps`.
func everythingScript(t testing.TB) string {
	t.Helper()
	dir := npmDir()
	p := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("server-everything is not installed (%v); run make deps", err)
	}
	return p
}

// TestMCPCallURL calls server-everything over streamable HTTP with --url
// and no profile at all.
func TestMCPCallURL(t *testing.T) {
	addr := startEverythingHTTP(t)
	io, _, out, errOut := TestIO()
	f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
		if k == "OLLM_HOME" {
			return t.TempDir()
		}
		return ""
	}, Environ: os.Environ, Getwd: os.Getwd, Now: time.Now}
	o := newMCPOptions(f)
	o.URL = "http://" + addr + "/mcp"
	server, name, params, err := mcpCallArgs(o, []string{"trigger-long-running-operation", `{"duration":0.2,"steps":2}`})
	if err != nil || server != adHocName {
		t.Fatal(server, err)
	}
	if err := mcpCallRun(o, server, name, params); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out.String(), "completed") || !strings.Contains(errOut.String(), "progress 2/2") {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
}

// get-roots-list makes server-everything ask for the roots on the GET
// stream, outside the call: the answer comes back within the call, and the
// root is the directory ollm runs in.
func TestMCPCallURLRootsOverGetStream(t *testing.T) {
	addr := startEverythingHTTP(t)
	wd := t.TempDir()
	io, _, out, errOut := TestIO()
	f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
		if k == "OLLM_HOME" {
			return t.TempDir()
		}
		return ""
	}, Environ: os.Environ, Getwd: func() (string, error) { return wd, nil }, Now: time.Now}
	o := newMCPOptions(f)
	o.URL = "http://" + addr + "/mcp"
	if err := mcpCallRun(o, adHocName, "get-roots-list", "{}"); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out.String(), "URI: file://"+wd) {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
}

// startEverythingHTTP runs server-everything over streamable HTTP on a
// loopback port and returns its address.
func startEverythingHTTP(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	preload, _ := filepath.Abs(filepath.Join("..", "..", "core", "mcp", "testdata", "loopback.cjs"))
	srv := exec.Command("node", "--require", preload, everythingScript(t), "streamableHttp")
	srv.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if i == 1500 {
			t.Fatal("server-everything never listened")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return addr
}

// oneShotServer is a small stdio MCP server with a tool, a resource and
// a prompt, for tests that run the mcp subcommands against it.
const oneShotServer = `import json, sys

def send(rid, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()

for line in sys.stdin:
    req = json.loads(line)
    method, rid = req.get("method"), req.get("id")
    if rid is None:
        continue
    if method == "initialize":
        send(rid, {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
                   "serverInfo": {"name": "py", "version": "1"}})
    elif method == "tools/list":
        send(rid, {"tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]})
    elif method == "tools/call":
        send(rid, {"content": [{"type": "text", "text": req["params"]["arguments"]["text"]}]})
    elif method == "resources/list":
        send(rid, {"resources": [{"uri": "file:///note", "name": "note"}]})
    elif method == "resources/templates/list":
        send(rid, {"resourceTemplates": []})
    elif method == "resources/read":
        send(rid, {"contents": [{"uri": "file:///note", "text": "a note"}]})
    elif method == "prompts/list":
        send(rid, {"prompts": [{"name": "hello"}]})
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no " + method}}) + "\n")
        sys.stdout.flush()
`

// TestOneShotStopGrace: every mcp subcommand that starts servers is a
// one-shot command, and the Manager it builds gives a stdio server at
// most 100 ms between closing its stdin and SIGTERM (issue 16), with a
// profile's server, an ad-hoc --command one and an ad-hoc --url one.
// Each command runs whole through the command tree; the options are the
// ones mcpManager hands to the Manager. A new mcp subcommand must be
// classed here, as one that starts servers or one that does not.
func TestOneShotStopGrace(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	script := filepath.Join(home, "server.py")
	if err := os.WriteFile(script, []byte(oneShotServer), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "profile.cue"), []byte(`mcp: servers: py: {command: "python3", args: ["server.py"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []mcp.Options
	mcpManagerBuilt = func(o mcp.Options) { seen = append(seen, o) }
	defer func() { mcpManagerBuilt = nil }()

	adHoc := "python3 " + script
	url := "http://127.0.0.1:1/mcp" // nothing listens: the command fails, after building its Manager
	runs := map[string][][]string{
		"list":      {{}, {"--command", adHoc}, {"--url", url}},
		"tools":     {{}, {"py"}, {"py:echo"}, {"--command", adHoc}, {"--url", url}},
		"call":      {{"py", "echo", `{"text":"x"}`}, {"py:echo", `{"text":"x"}`}, {"--command", adHoc, "echo", `{"text":"x"}`}, {"--url", url, "echo"}},
		"resources": {{}, {"py"}, {"--command", adHoc}, {"--url", url}},
		"read":      {{"py", "file:///note"}, {"--command", adHoc, "file:///note"}, {"--url", url, "file:///note"}},
		"prompts":   {{}, {"py"}, {"--command", adHoc}, {"--url", url}},
	}
	// The subcommands that start no server through mcpManager: add,
	// remove and import edit the profile, login and logout manage tokens,
	// serve is ollm as a long-running server (its runtime stops servers
	// when it ends).
	others := map[string]bool{"add": true, "remove": true, "import": true, "login": true, "logout": true, "serve": true}
	for _, sub := range newCmdMCP(&Factory{IO: &IOStreams{}}).Commands() {
		name := sub.Name()
		if _, ok := runs[name]; !ok && !others[name] {
			t.Errorf("mcp %s is new: class it in TestOneShotStopGrace (does it start servers? with what StopGrace?)", name)
		}
	}
	for sub, argss := range runs {
		for _, args := range argss {
			line := append([]string{"mcp", sub}, args...)
			t.Run(strings.Join(line, " "), func(t *testing.T) {
				io, _, out, errOut := TestIO()
				f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
					if k == "OLLM_HOME" {
						return home
					}
					return ""
				}, Environ: os.Environ, Getwd: func() (string, error) { return wd, nil }, Now: time.Now}
				seen = nil
				code := Run(f, line)
				if args := strings.Join(args, " "); !strings.Contains(args, "--url") && code != ExitOK {
					t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
				}
				if len(seen) != 1 {
					t.Fatalf("%d Managers built, want 1\nstderr %s", len(seen), errOut)
				}
				if g := seen[0].StopGrace; g <= 0 || g > 100*time.Millisecond {
					t.Errorf("StopGrace %v: a one-shot command must escalate to SIGTERM within (0, 100ms] of closing a stdio server's stdin", g)
				}
			})
		}
	}
}

// TestTUITaskProgress: in the TUI, a tool that runs as an MCP task
// (server-everything's simulate-research-query, taskSupport "required")
// shows the task's status messages on its card while it runs, then the
// result. The session is wired as `ollm` wires it (profile, runtime,
// tui.AgentRuntime, tui.Model); the fake Ollama asks for the tool. The
// statuses are polled, so which working stages show is timing: one
// working status and the completed one are asserted.
func TestTUITaskProgress(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.ToolCall("simulate-research-query", map[string]any{"topic": "tasks"}))
	srv.Reply(llmtest.Text("researched"))
	profile := `model: name: "test-model"
mcp: servers: everything: {command: "node", args: ["` + everythingScript(t) + `", "stdio"]}
policy: defaultAction: "allow"
`
	if err := os.WriteFile(filepath.Join(home, "profile.cue"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OLLM_HOME": home, "OLLAMA_HOST": srv.URL, "PATH": os.Getenv("PATH")}
	io, _, _, _ := TestIO()
	f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string { return env[k] },
		Environ: func() []string {
			var out []string
			for k, v := range env {
				out = append(out, k+"="+v)
			}
			return out
		}, Getwd: func() (string, error) { return wd, nil }, Now: time.Now}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt, err := f.NewRuntime(ctx, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if warns, err := rt.WaitServers(ctx); err != nil || len(warns) > 0 {
		t.Fatalf("servers: %v %q", err, warns)
	}
	ui := tui.NewAgentRuntime(ctx, tui.AgentOptions{Bus: rt.Bus})
	defer ui.Close()
	cfg := rt.AgentConfig()
	cfg.OnEvent = ui.OnEvent
	s, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	ui.Attach(s)

	m := tui.New(ui, tui.Options{Width: 120, Height: 60, Style: "notty"})
	ansi := regexp.MustCompile("\x1b\\[[0-9;?]*[a-zA-Z]")
	view := func() string { return ansi.ReplaceAllString(m.View(), "") }
	for _, r := range "research tasks" {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})

	// The card as the user sees it after each status the task reports.
	var shown []string
	timeout := time.After(2 * time.Minute)
	for done := false; !done; {
		select {
		case ev, ok := <-ui.Events():
			if !ok {
				t.Fatal("events closed")
			}
			m.Update(ev)
			switch ev := ev.(type) {
			case tui.ToolProgress:
				if ev.Message != "" {
					shown = append(shown, view())
				}
			case tui.TurnDone:
				if ev.Err != "" {
					t.Fatal(ev.Err)
				}
				done = true
			}
		case <-timeout:
			t.Fatalf("no end of the turn; the screen:\n%s", view())
		}
	}
	// cardLines is the card's header and the status line under it.
	cardLines := func(v string) (head, status string) {
		lines := strings.Split(v, "\n")
		for i, l := range lines {
			if strings.Contains(l, "everything · simulate-research-query") {
				head = l
				if i+1 < len(lines) {
					status = strings.Trim(lines[i+1], " │|")
				}
			}
		}
		return head, status
	}
	var working, completed bool
	for _, v := range shown {
		head, status := cardLines(v)
		if !strings.Contains(head, "everything · simulate-research-query topic=tasks") || !strings.ContainsAny(head, "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏") {
			t.Fatalf("card header while the task runs: %q\n%s", head, v)
		}
		working = working || strings.HasPrefix(status, "working: ")
		completed = completed || strings.HasPrefix(status, "completed: ")
	}
	if !working || !completed {
		t.Fatalf("the card never showed a working status (%v) and the completed one (%v):\n%s", working, completed, strings.Join(shown, "\n----\n"))
	}
	v := view()
	head, _ := cardLines(v)
	if !strings.Contains(head, "✓ everything · simulate-research-query") {
		t.Fatalf("card header at the end: %q\n%s", head, v)
	}
	if !strings.Contains(v, "Research Report: tasks") || !strings.Contains(v, "researched") {
		t.Fatalf("the result or the answer is missing:\n%s", v)
	}
	if strings.Contains(v, "working: ") || strings.Contains(v, "completed: ") {
		t.Fatalf("a finished card still shows the task's status:\n%s", v)
	}
}
