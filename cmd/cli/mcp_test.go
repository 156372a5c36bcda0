package cli

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/mcp"
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
	// The subcommands that start no server through mcpManager: add and
	// remove edit the profile, login and logout manage tokens, serve is
	// ollm as a long-running server (its runtime stops servers when it ends).
	others := map[string]bool{"add": true, "remove": true, "login": true, "logout": true, "serve": true}
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
