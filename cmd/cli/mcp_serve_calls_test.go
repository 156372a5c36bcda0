package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// shellProfile lets the shell run without asking.
const shellProfile = `model: name: "test-model"
policy: rules: [{name: "sh", tool: "shell", action: "allow"}]
`

func callTool(ctx context.Context, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	return c.CallTool(ctx, req)
}

// waitFiles waits until every file exists (or ctx ends).
func waitFiles(ctx context.Context, t *testing.T, files ...string) {
	t.Helper()
	for {
		n := 0
		for _, f := range files {
			if _, err := os.Stat(f); err == nil {
				n++
			}
		}
		if n == len(files) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d of %d calls started: %v", n, len(files), ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// More calls than mcp-go's five stdio workers run at once: twelve shell
// calls each leave a marker and wait for a release file the test writes
// only once all twelve markers exist; and a read_file answers while they
// all wait.
func TestMCPServeConcurrentCalls(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), shellProfile)
	e.write(filepath.Join(e.ws, "notes.txt"), "one\n")
	c, cctx := serveStdio(t, e, mcp.LATEST_PROTOCOL_VERSION)
	// A failed test lets the waiting calls end before the server stops.
	t.Cleanup(func() { _ = os.WriteFile(filepath.Join(e.ws, "release"), nil, 0o644) })
	const n = 12
	var markers []string
	errs := make(chan error, n)
	for i := range n {
		markers = append(markers, filepath.Join(e.ws, fmt.Sprintf("started-%d", i)))
		go func() {
			r, err := callTool(cctx, c, "shell", map[string]any{"command": fmt.Sprintf("touch started-%d; while [ ! -e release ]; do sleep 0.02; done; echo done-%d", i, i)})
			if err == nil && (r.IsError || !strings.Contains(toolText(r), fmt.Sprintf("done-%d", i))) {
				err = fmt.Errorf("call %d: %q", i, toolText(r))
			}
			errs <- err
		}()
	}
	wctx, cancel := context.WithTimeout(cctx, 30*time.Second)
	defer cancel()
	waitFiles(wctx, t, markers...)
	if r, err := callTool(wctx, c, "read_file", map[string]any{"path": "notes.txt"}); err != nil || toolText(r) != "one\n" {
		t.Fatalf("read_file while %d calls wait: %v %v", n, r, err)
	}
	e.write(filepath.Join(e.ws, "release"), "")
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// mcp.serve.maxConcurrent bounds the calls that run: with 2, the third
// call starts only once one of the first two ended. A value out of range
// is refused, naming the field.
func TestMCPServeMaxConcurrent(t *testing.T) {
	e := newSessionEnv(t)
	for _, bad := range []string{"0", "101"} {
		e.write(filepath.Join(e.home, "profile.cue"), shellProfile+"mcp: serve: maxConcurrent: "+bad+"\n")
		code, errOut := runServe(e, "mcp", "serve")
		if code == ExitOK || !strings.Contains(errOut, "maxConcurrent") {
			t.Errorf("maxConcurrent %s: exit %d: %s", bad, code, errOut)
		}
	}
	e.write(filepath.Join(e.home, "profile.cue"), shellProfile+"mcp: serve: maxConcurrent: 2\n")
	c, cctx := serveStdio(t, e, mcp.LATEST_PROTOCOL_VERSION)
	t.Cleanup(func() {
		for i := range 3 {
			_ = os.WriteFile(filepath.Join(e.ws, fmt.Sprintf("release-%d", i)), nil, 0o644)
		}
	})
	errs := make(chan error, 3)
	for i := range 3 {
		go func() {
			_, err := callTool(cctx, c, "shell", map[string]any{"command": fmt.Sprintf("touch started-%d; while [ ! -e release-%d ]; do sleep 0.02; done", i, i)})
			errs <- err
		}()
	}
	wctx, cancel := context.WithTimeout(cctx, 30*time.Second)
	defer cancel()
	started := func() (on []int) {
		for i := range 3 {
			if _, err := os.Stat(filepath.Join(e.ws, fmt.Sprintf("started-%d", i))); err == nil {
				on = append(on, i)
			}
		}
		return on
	}
	for len(started()) < 2 {
		select {
		case <-wctx.Done():
			t.Fatalf("started: %v", started())
		case <-time.After(10 * time.Millisecond):
		}
	}
	// The third waits for a free place: a call after the two that run
	// (read_file) still needs one, so it cannot answer before one ends.
	first := started()
	if len(first) != 2 {
		t.Fatalf("with maxConcurrent 2, calls %v started", first)
	}
	e.write(filepath.Join(e.ws, fmt.Sprintf("release-%d", first[0])), "")
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	for len(started()) < 3 {
		select {
		case <-wctx.Done():
			t.Fatalf("the third call never started: %v", started())
		case <-time.After(10 * time.Millisecond):
		}
	}
	for i := range 3 {
		e.write(filepath.Join(e.ws, fmt.Sprintf("release-%d", i)), "")
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// rawServe runs `ollm mcp serve` on pipes for a test that speaks
// JSON-RPC itself: send writes a message, and the messages the server
// writes arrive on the returned channel.
func rawServe(t *testing.T, e *sessionEnv) (send func(string), msgs <-chan map[string]any) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	f := &Factory{IO: &IOStreams{In: inR, Out: outW, ErrOut: stderr}, Getenv: e.f.Getenv, Environ: e.f.Environ,
		Getwd: e.f.Getwd, Now: e.f.Now, Context: ctx}
	done := make(chan ExitCode, 1)
	go func() {
		done <- Run(f, []string{"mcp", "serve"})
		outW.Close()
		inR.Close()
	}()
	ch := make(chan map[string]any, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("not JSON: %q", sc.Text())
				continue
			}
			ch <- m
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		if code := <-done; code != ExitOK {
			t.Errorf("ollm mcp serve exited %d: %s", code, stderr.String())
		}
	})
	var mu sync.Mutex
	send = func(s string) {
		mu.Lock()
		defer mu.Unlock()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := <-ch; m["id"] != float64(0) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return send, ch
}

// A request the client cancels gets no response (MCP: the receiver
// stops and does not answer); its command is killed, and the next
// request is answered.
func TestMCPServeCancelledCallGetsNoResponse(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), shellProfile)
	send, msgs := rawServe(t, e)
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"shell","arguments":{"command":"echo $$ > pid; exec sleep 60"}}}`)
	pidFile := filepath.Join(e.ws, "pid")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var pid int
	for pid == 0 {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		select {
		case <-ctx.Done():
			t.Fatal("the command never started")
		case <-time.After(10 * time.Millisecond):
		}
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user pressed stop"}}`)
	for syscall.Kill(pid, 0) == nil {
		select {
		case <-ctx.Done():
			t.Fatalf("the command (pid %d) still runs after the cancel", pid)
		case <-time.After(10 * time.Millisecond):
		}
	}
	send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	for m := range msgs {
		if m["id"] == float64(7) {
			t.Fatalf("the cancelled request was answered: %v", m)
		}
		if m["id"] == float64(8) {
			break
		}
	}
	// The id of the cancelled request may be used again and is answered.
	send(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	if m := <-msgs; m["id"] != float64(7) || m["result"] == nil {
		t.Fatalf("a later request with id 7: %v", m)
	}
}

// tools/list carries MCP annotations from each tool's kind and risk.
func TestMCPServeToolAnnotations(t *testing.T) {
	e := newSessionEnv(t)
	c, cctx := serveStdio(t, e, mcp.LATEST_PROTOCOL_VERSION)
	tl, err := c.ListTools(cctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	hint := func(b *bool) string {
		if b == nil {
			return "-"
		}
		return strconv.FormatBool(*b)
	}
	got := map[string]string{}
	for _, x := range tl.Tools {
		a := x.Annotations
		got[x.Name] = fmt.Sprintf("%s ro=%s destructive=%s idempotent=%s open=%s", a.Title, hint(a.ReadOnlyHint), hint(a.DestructiveHint), hint(a.IdempotentHint), hint(a.OpenWorldHint))
	}
	for name, want := range map[string]string{
		"read_file":   "Read file ro=true destructive=false idempotent=true open=false",
		"grep":        "Grep ro=true destructive=false idempotent=true open=false",
		"web_fetch":   "Web fetch ro=true destructive=false idempotent=true open=true",
		"web_search":  "Web search ro=true destructive=false idempotent=true open=true",
		"write_file":  "Write file ro=false destructive=true idempotent=false open=false",
		"edit_file":   "Edit file ro=false destructive=true idempotent=false open=false",
		"shell":       "Shell ro=false destructive=true idempotent=false open=true",
		"write_todos": "Write todos ro=false destructive=false idempotent=false open=false",
	} {
		if got[name] != want {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
}

// A call whose request carries _meta.progressToken gets a progress
// notification for each line its command prints and for the time it
// runs while quiet, with increasing progress, all before its result; a
// call without a token gets none.
func TestMCPServeProgress(t *testing.T) {
	old := progressEvery
	progressEvery = 100 * time.Millisecond
	t.Cleanup(func() { progressEvery = old })
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), shellProfile)
	var mu sync.Mutex
	var got []mcp.JSONRPCNotification
	c, cctx := serveStdio(t, e, mcp.LATEST_PROTOCOL_VERSION)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			mu.Lock()
			got = append(got, n)
			mu.Unlock()
		}
	})
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "shell", map[string]any{"command": "echo one; echo two; sleep 0.5; echo three"}
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok-1"}
	r, err := c.CallTool(cctx, req)
	if err != nil || r.IsError {
		t.Fatalf("call: %v %v", r, err)
	}
	mu.Lock()
	var lines []string
	last, running := 0.0, 0
	for _, n := range got {
		p := n.Params.AdditionalFields
		if p["progressToken"] != "tok-1" {
			t.Errorf("progress token: %v", p)
		}
		v, _ := p["progress"].(float64)
		if v <= last {
			t.Errorf("progress went from %v to %v", last, v)
		}
		last = v
		msg, _ := p["message"].(string)
		if strings.HasPrefix(msg, "running for ") {
			running++
		} else {
			lines = append(lines, msg)
		}
	}
	n := len(got)
	mu.Unlock()
	if strings.Join(lines, ",") != "one,two,three" || running == 0 {
		t.Errorf("progress messages: lines %q, %d elapsed-time reports", lines, running)
	}
	req.Params.Meta = nil
	if _, err := c.CallTool(cctx, req); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != n {
		t.Errorf("a call without a progressToken got progress: %v", got[n:])
	}
}

// The server offers logging and completion: after logging/setLevel info
// the gate's decisions arrive as log messages (none at the default
// level); a skill's argument completes to the workspace's paths, hidden
// ones and those of a directory the policy keeps from ls left out, and
// nothing outside the workspace.
func TestMCPServeLoggingAndCompletion(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), serveProfile+`policy: rules: [{name: "no-private", tool: "ls", action: "deny", when: {arg: "path", glob: "private"}}]
skills: [{name: "review", description: "Review a file", prompt: "Review {file}."}]
`)
	for _, p := range []string{"src/main.go", "src/more.go", "src/other.go", ".env", "private/key", "README.md"} {
		e.write(filepath.Join(e.ws, p), "x\n")
	}
	var mu sync.Mutex
	var logs []string
	c, cctx := serveStdio(t, e, "2025-06-18")
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/message" {
			mu.Lock()
			logs = append(logs, fmt.Sprint(n.Params.AdditionalFields["level"], " ", n.Params.AdditionalFields["data"]))
			mu.Unlock()
		}
	})
	caps := c.GetServerCapabilities()
	if caps.Logging == nil || caps.Completions == nil {
		t.Fatalf("capabilities: %+v", caps)
	}
	if _, err := callTool(cctx, c, "write_file", map[string]any{"path": "secret/a", "content": "x"}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetLevel(cctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}); err != nil {
		t.Fatal(err)
	}
	if _, err := callTool(cctx, c, "write_file", map[string]any{"path": "secret/b", "content": "x"}); err != nil {
		t.Fatal(err)
	}
	// Notifications may trail the result: a ping after them is answered
	// after they were written.
	if err := c.Ping(cctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(logs) != 1 || !strings.HasPrefix(logs[0], "info write_file: deny") || !strings.Contains(logs[0], "secrets are written by hand") {
		t.Errorf("log messages: %q", logs)
	}
	mu.Unlock()

	complete := func(value string) []string {
		t.Helper()
		req := mcp.CompleteRequest{}
		req.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: "review"}
		req.Params.Argument = mcp.CompleteArgument{Name: "file", Value: value}
		r, err := c.Complete(cctx, req)
		if err != nil {
			t.Fatalf("complete %q: %v", value, err)
		}
		return r.Completion.Values
	}
	for value, want := range map[string][]string{
		"src/m":      {"src/main.go", "src/more.go"},
		"":           {"README.md", "private/", "src/"},
		".e":         {".env"},
		"private/":   {},
		"../":        {},
		"/etc/":      {},
		"src/../../": {},
	} {
		if got := complete(value); !slices.Equal(got, want) {
			t.Errorf("complete %q: %q, want %q", value, got, want)
		}
	}
	req := mcp.CompleteRequest{}
	req.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: "review"}
	req.Params.Argument = mcp.CompleteArgument{Name: "nope", Value: ""}
	if _, err := c.Complete(cctx, req); err == nil || !strings.Contains(err.Error(), `skill review has no argument "nope"`) {
		t.Errorf("completing an unknown argument: %v", err)
	}
}

// The truncation note counts what a command printed past what ollm keeps
// of it (4 MiB) exactly: characters when the character limit cut, lines
// when the line limit did.
func TestMCPServeTruncationNoteCounts(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), shellProfile)
	c, cctx := serveStdio(t, e, mcp.LATEST_PROTOCOL_VERSION)
	for cmd, want := range map[string]string{
		"head -c 5000000 /dev/zero | tr '\\0' a":                           "[... output truncated: 4970000 characters omitted ...]",
		"head -c 5000000 /dev/zero | tr '\\0' a; echo; seq 5000":           "[... output truncated: 4993894 characters omitted ...]",
		"yes é | tr -d '\\n' | head -c 6000000":                            "[... output truncated: 2970000 characters omitted ...]",
		"for i in $(seq 50000); do printf '%099d\\n' $i; done":             "[... output truncated: 48000 lines and 170000 characters omitted ...]",
		"for i in $(seq 50000); do printf '%099d\\n' $i; done; printf x":   "[... output truncated: 48001 lines and 170000 characters omitted ...]",
		"printf 'short\\n'; head -c 5000000 /dev/zero | tr '\\0' b; seq 3": "[... output truncated: 4970012 characters omitted ...]",
	} {
		r, err := callTool(cctx, c, "shell", map[string]any{"command": cmd})
		if err != nil {
			t.Fatal(err)
		}
		text := toolText(r)
		if i := strings.Index(text, "[... output truncated"); i < 0 || !strings.HasPrefix(text[i:], want) {
			t.Errorf("%s: the note %q, want %q", cmd, text[max(0, len(text)-120):], want)
		}
	}
}

// 16 one-second shell calls at once through the real `ollm mcp serve`
// process on stdio: about a second each round when they all run at once
// (mcp-go's five stdio workers took four).
func BenchmarkMCPServeConcurrentShell(b *testing.B) {
	ollm, err := exec.LookPath("ollm")
	if err != nil {
		b.Fatalf("the test binary as ollm: %v", err)
	}
	root := b.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	for _, d := range []string{home, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "profile.cue"), []byte(shellProfile), 0o644); err != nil {
		b.Fatal(err)
	}
	srv := llmtest.NewOllama(b)
	cmd := exec.Command(ollm, "mcp", "serve")
	cmd.Dir = ws
	cmd.Env = []string{"OLLM_HOME=" + home, "OLLAMA_HOST=" + srv.URL, "PATH=" + os.Getenv("PATH"), "HOME=" + root}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := client.NewClient(transport.NewIO(out, in, io.NopCloser(strings.NewReader(""))))
	b.Cleanup(func() {
		c.Close()
		in.Close()
		_ = cmd.Wait()
	})
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				if r, err := callTool(ctx, c, "shell", map[string]any{"command": "sleep 1"}); err != nil || r.IsError {
					b.Errorf("sleep 1: %v %v", r, err)
				}
			})
		}
		wg.Wait()
	}
}
