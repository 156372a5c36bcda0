package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

const serveProfile = `model: name: "test-model"
policy: rules: [
	{name: "no-secrets", tool: "write_file", action: "deny", when: {arg: "path", glob: "secret/**"}, message: "secrets are written by hand"},
]
`

// startServeHTTP starts the real `ollm mcp serve --http` (the test binary
// as ollm) in the workspace and returns its URL and the token it printed.
func startServeHTTP(t *testing.T, e *sessionEnv, extra ...string) (url, token string) {
	t.Helper()
	ollm, err := exec.LookPath("ollm")
	if err != nil {
		t.Fatalf("the test binary as ollm: %v", err)
	}
	cmd := exec.Command(ollm, append([]string{"mcp", "serve", "--http", "127.0.0.1:0"}, extra...)...)
	cmd.Dir = e.ws
	cmd.Env = append(e.f.Environ(), "HOME="+filepath.Join(filepath.Dir(e.home), "userhome"))
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("ollm mcp serve --http: %v\n%s", err, stderr.String())
		}
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if u, ok := strings.CutPrefix(line, "ollm mcp serve: "); ok {
			url = u
		}
		if tok, ok := strings.CutPrefix(line, "token: "); ok {
			token = tok
		}
		if url != "" && (token != "" || len(extra) > 0) {
			break
		}
	}
	if url == "" {
		t.Fatalf("no URL printed: %s", stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return url, token
}

// elicitAnswers answers the server's confirmations by the path in the
// question: allow for a.txt, deny for anything else; it keeps the
// questions.
type elicitAnswers struct {
	mu        sync.Mutex
	questions []string
}

func (h *elicitAnswers) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	h.mu.Lock()
	h.questions = append(h.questions, req.Params.Message)
	h.mu.Unlock()
	d := "deny"
	if strings.Contains(req.Params.Message, "a.txt") {
		d = "allow"
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"decision": d}}}, nil
}

// runServe runs `ollm ARGS` in process and returns its exit code and
// stderr.
func runServe(e *sessionEnv, args ...string) (ExitCode, string) {
	io, _, _, errOut := TestIO()
	f := &Factory{IO: io, Getenv: e.f.Getenv, Environ: e.f.Environ, Getwd: e.f.Getwd, Now: e.f.Now, Context: context.Background()}
	code := Run(f, args)
	return code, errOut.String()
}

func toolText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// `ollm mcp serve --http` (the real process) driven by mcp-go's
// streamable HTTP client: requests without the token, or with a wrong
// one, get 401; with it, the tools are listed, a read is allowed, a denied
// write is refused with the policy's reason without asking, and a write
// the policy asks about is asked through the client's elicitation:
// allowed once it is written, denied it is not.
func TestMCPServeHTTPTokenAndElicitation(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), serveProfile)
	e.write(filepath.Join(e.ws, "notes.txt"), "one\ntwo\n")
	url, token := startServeHTTP(t, e)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") || len(token) < 32 {
		t.Fatalf("url %q, token %q", url, token)
	}
	for _, auth := range []string{"", "Bearer wrong-token-of-some-length", "Bearer " + token + "x", token, "Basic " + token, "Bearer"} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "Authorization: Bearer TOKEN") {
			t.Errorf("Authorization %q: %d %s", auth, resp.StatusCode, body)
		}
	}

	answers := &elicitAnswers{}
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithElicitationHandler(answers))
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	tl, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range tl.Tools {
		names = append(names, x.Name)
	}
	if !slices.Contains(names, "read_file") || !slices.Contains(names, "write_file") {
		t.Fatalf("tools: %v", names)
	}
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		r, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := call("read_file", map[string]any{"path": "notes.txt"}); r.IsError || toolText(r) != "one\ntwo\n" {
		t.Fatalf("read_file: %v %q", r.IsError, toolText(r))
	}
	r := call("write_file", map[string]any{"path": "secret/key.txt", "content": "x"})
	if !r.IsError || !strings.Contains(toolText(r), "secrets are written by hand") {
		t.Fatalf("denied write: %v %q", r.IsError, toolText(r))
	}
	if len(answers.questions) != 0 {
		t.Fatalf("a denied call was asked about: %q", answers.questions)
	}
	if r := call("write_file", map[string]any{"path": "a.txt", "content": "allowed\n"}); r.IsError {
		t.Fatalf("write allowed through elicitation: %q", toolText(r))
	}
	r = call("write_file", map[string]any{"path": "b.txt", "content": "no\n"})
	if !r.IsError || !strings.Contains(toolText(r), "the user denied this call: denied through the MCP client") {
		t.Fatalf("write denied through elicitation: %v %q", r.IsError, toolText(r))
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, "a.txt")); err != nil || string(b) != "allowed\n" {
		t.Errorf("a.txt: %q %v", b, err)
	}
	for _, p := range []string{"secret/key.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(e.ws, p)); !os.IsNotExist(err) {
			t.Errorf("%s was written: %v", p, err)
		}
	}
	if len(answers.questions) != 2 || !strings.Contains(answers.questions[0], "write_file") ||
		!strings.Contains(answers.questions[0], "Asked by the default action (ask)") {
		t.Errorf("questions: %q", answers.questions)
	}
}

// --http binds loopback only, and a token from a file is used and never
// printed; a short one is refused.
func TestMCPServeHTTPFlags(t *testing.T) {
	e := newSessionEnv(t)
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:8765", "example.com:80"} {
		code, errOut := runServe(e, "mcp", "serve", "--http", addr)
		if code != ExitConfig || !strings.Contains(errOut, "loopback address only") {
			t.Errorf("--http %s: exit %d, %s", addr, code, errOut)
		}
	}
	short := filepath.Join(e.home, "short-token")
	e.write(short, "abc\n")
	if code, errOut := runServe(e, "mcp", "serve", "--http", ":0", "--token-file", short); code != ExitConfig || !strings.Contains(errOut, "shorter than 16") {
		t.Errorf("short token: exit %d, %s", code, errOut)
	}
	file := filepath.Join(e.home, "mcp-token")
	const tok = "a-token-from-a-file-0123456789"
	e.write(file, tok+"\n")
	url, printed := startServeHTTP(t, e, "--token-file", file)
	if printed != "" {
		t.Errorf("a token from a file was printed: %q", printed)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "bearer "+tok) // the scheme in any case (RFC 9110)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"serverInfo"`) {
		t.Errorf("initialize with the file's token: %d %s", resp.StatusCode, body)
	}
}

// The MCP Inspector's CLI (npm @modelcontextprotocol/inspector --cli)
// drives `ollm mcp serve` on stdio and over HTTP with the token: tools
// listed, a read allowed, a denied write refused with the policy's reason.
func TestMCPServeInspectorCLI(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), serveProfile)
	e.write(filepath.Join(e.ws, "notes.txt"), "one\ntwo\n")
	npm := acpNpmDir(t)
	inspector := filepath.Join(npm, "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(inspector); err != nil {
		t.Fatalf("@modelcontextprotocol/inspector is not installed (%v); run make deps", err)
	}
	ollm, err := exec.LookPath("ollm")
	if err != nil {
		t.Fatal(err)
	}
	url, token := startServeHTTP(t, e)
	home := filepath.Join(filepath.Dir(e.home), "userhome")
	targets := map[string][]string{
		// The inspector starts a stdio server with a minimal environment:
		// OLLM_HOME and OLLAMA_HOST are passed with -e.
		"stdio": {"-e", "OLLM_HOME=" + e.home, "-e", "OLLAMA_HOST=" + e.f.Getenv("OLLAMA_HOST"), "-e", "HOME=" + home, ollm, "mcp", "serve"},
		"http":  {url, "--transport", "http", "--header", "Authorization: Bearer " + token},
	}
	for _, name := range []string{"stdio", "http"} {
		inspect := func(args ...string) (map[string]any, string) {
			t.Helper()
			cmd := exec.Command(inspector, append(append([]string{"--cli"}, targets[name]...), args...)...)
			cmd.Dir = e.ws
			cmd.Env = append(e.f.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, _ := cmd.Output() // a tool error exits non-zero; the result is on stdout
			var v map[string]any
			dec := json.NewDecoder(strings.NewReader(string(out)))
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("%s %v: %v: %s\n%s", name, args, err, out, stderr.String())
			}
			return v, string(out)
		}
		_, out := inspect("--method", "tools/list")
		for _, want := range []string{`"read_file"`, `"write_file"`, `"shell"`} {
			if !strings.Contains(out, want) {
				t.Errorf("%s tools/list lacks %s: %.300s", name, want, out)
			}
		}
		v, out := inspect("--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=notes.txt")
		if v["isError"] == true || !strings.Contains(out, `"one\ntwo\n"`) {
			t.Errorf("%s read_file: %s", name, out)
		}
		v, out = inspect("--method", "tools/call", "--tool-name", "write_file", "--tool-arg", "path=secret/key.txt", "content=x")
		if v["isError"] != true || !strings.Contains(out, "the policy denies this call") || !strings.Contains(out, "secrets are written by hand") {
			t.Errorf("%s denied write_file: %s", name, out)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "secret", "key.txt")); !os.IsNotExist(err) {
		t.Errorf("secret/key.txt was written: %v", err)
	}
}
