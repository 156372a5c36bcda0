package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// `ollm mcp serve` driven by mcp-go's client: the tools are listed, a read
// is allowed, a write the policy denies is refused with the policy's
// reason, one it would ask about is refused naming the rule (nobody can
// confirm), and a skill is a prompt.
func TestMCPServeThroughTheGate(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
policy: rules: [
	{name: "no-secrets", tool: "write_file", action: "deny", when: {arg: "path", glob: "secret/**"}, message: "secrets are written by hand"},
]
skills: [{name: "changelog", description: "Write a changelog entry", prompt: "Write a changelog entry for {change}."}]
`)
	e.write(filepath.Join(e.ws, "notes.txt"), "one\ntwo\n")
	c, cctx := serveStdio(t, e, mcp.LATEST_PROTOCOL_VERSION)
	tl, err := c.ListTools(cctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range tl.Tools {
		names = append(names, x.Name)
	}
	for _, want := range []string{"read_file", "write_file", "shell", "edit_file"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools %v lack %s", names, want)
		}
	}
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		r, err := c.CallTool(cctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	textOf := func(r *mcp.CallToolResult) string {
		var b strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	if r := call("read_file", map[string]any{"path": "notes.txt"}); r.IsError || textOf(r) != "one\ntwo\n" {
		t.Fatalf("read_file: %v %q", r.IsError, textOf(r))
	}
	r := call("write_file", map[string]any{"path": "secret/key.txt", "content": "x"})
	if !r.IsError || !strings.Contains(textOf(r), "the policy denies this call") || !strings.Contains(textOf(r), "secrets are written by hand") {
		t.Fatalf("denied write: %v %q", r.IsError, textOf(r))
	}
	r = call("write_file", map[string]any{"path": "a.txt", "content": "x"})
	if !r.IsError || !strings.Contains(textOf(r), "needs confirmation") {
		t.Fatalf("asked write: %v %q", r.IsError, textOf(r))
	}
	for _, p := range []string{"secret/key.txt", "a.txt"} {
		if _, err := os.Stat(filepath.Join(e.ws, p)); !os.IsNotExist(err) {
			t.Fatalf("%s was written: %v", p, err)
		}
	}
	preq := mcp.GetPromptRequest{}
	preq.Params.Name, preq.Params.Arguments = "changelog", map[string]string{"change": "mcp serve"}
	pr, err := c.GetPrompt(cctx, preq)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Messages) != 1 || pr.Messages[0].Content.(mcp.TextContent).Text != "Write a changelog entry for mcp serve." {
		t.Fatalf("prompt: %+v", pr.Messages)
	}
}

// On stdio, a client of an earlier protocol version (2025-06-18) that
// offers elicitation is asked with a server-initiated elicitation/create:
// an allowed write is written, a denied one is not.
func TestMCPServeStdioElicitation(t *testing.T) {
	e := newSessionEnv(t)
	answers := &elicitAnswers{}
	c, cctx := serveStdio(t, e, "2025-06-18", client.WithElicitationHandler(answers))
	for _, p := range []string{"a.txt", "b.txt"} {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "write_file", map[string]any{"path": p, "content": p}
		r, err := c.CallTool(cctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if want := p == "b.txt"; r.IsError != want {
			t.Errorf("%s: isError %v: %q", p, r.IsError, toolText(r))
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, "a.txt")); err != nil || string(b) != "a.txt" {
		t.Errorf("a.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt was written: %v", err)
	}
	if len(answers.questions) != 2 {
		t.Errorf("questions: %q", answers.questions)
	}
}

// serveStdio runs `ollm mcp serve` in e over pipes and returns an mcp-go
// client initialized at protocol, with a context for its calls; the
// server must exit cleanly when the test ends.
func serveStdio(t *testing.T, e *sessionEnv, protocol string, opts ...client.ClientOption) (*client.Client, context.Context) {
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
		inR.Close() // a client still writing fails instead of waiting
	}()
	c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))), opts...)
	t.Cleanup(func() {
		c.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }() // the client reads no more: a late write must not block the server
		inW.Close()
		cancel()
		if code := <-done; code != ExitOK {
			t.Errorf("ollm mcp serve exited %d: %s", code, stderr.String())
		}
	})
	cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(ccancel)
	if err := c.Start(cctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = protocol
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(cctx, init); err != nil {
		t.Fatal(err)
	}
	return c, cctx
}
