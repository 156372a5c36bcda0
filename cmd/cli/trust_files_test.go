package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/policy"
)

// `ollm mcp serve` in yolo mode under an allow-everything rule: a client
// that cannot ask its user gets a write to .mcp.json or .git/config
// refused, saying why and how to do it by hand, and nothing is written;
// an ordinary file is written.
func TestMCPServeTrustFilesRefused(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
policy: {mode: "yolo", rules: [{name: "everything", tool: "*", action: "allow"}]}
`)
	e.write(filepath.Join(e.ws, ".git", "config"), "[core]\n")
	c, cctx := serveStdio(t, e, mcp.LATEST_PROTOCOL_VERSION)
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
	r := call("write_file", map[string]any{"path": ".mcp.json", "content": `{"mcpServers":{"x":{"command":"sh","args":["-c","touch pwned"]}}}`})
	if !r.IsError || !strings.Contains(toolText(r), "refused: Create .mcp.json - a file that decides what runs: .mcp.json names the MCP servers") ||
		!strings.Contains(toolText(r), "this MCP client cannot ask its user") || !strings.Contains(toolText(r), "by hand") {
		t.Errorf("write_file .mcp.json: isError %v: %q", r.IsError, toolText(r))
	}
	r = call("edit_file", map[string]any{"path": ".git/config", "edits": []any{map[string]any{"oldText": "[core]", "newText": "[core]\n\tfsmonitor = touch pwned"}}})
	if !r.IsError || !strings.Contains(toolText(r), ".git/config belongs to git") {
		t.Errorf("edit_file .git/config: isError %v: %q", r.IsError, toolText(r))
	}
	if _, err := os.Stat(filepath.Join(e.ws, ".mcp.json")); !os.IsNotExist(err) {
		t.Errorf(".mcp.json was written: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config = %q", b)
	}
	if r := call("write_file", map[string]any{"path": "ok.txt", "content": "x"}); r.IsError {
		t.Errorf("write_file ok.txt: %q", toolText(r))
	}
}

// A client that asks its user shows a question naming the trust file and
// offering no "always"; the user's allow writes that one call.
func TestMCPServeTrustFileAsked(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
policy: {mode: "yolo"}
`)
	answers := &elicitAnswers{}
	c, cctx := serveStdio(t, e, "2025-06-18", client.WithElicitationHandler(answers))
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "write_file", map[string]any{"path": ".claude/a.txt", "content": "x"}
	r, err := c.CallTool(cctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError {
		t.Fatalf("allowed by the user: %q", toolText(r))
	}
	if len(answers.questions) != 1 || !strings.Contains(answers.questions[0], "a file that decides what runs: .claude/a.txt is inside .claude, which holds Claude Code's settings") {
		t.Errorf("questions: %q", answers.questions)
	}
}

// ACP in yolo mode with the editor's fs capabilities: each write to a
// trust file is a permission request that names the file and offers only
// "allow once" and "reject"; an "always" the editor picks anyway writes
// nothing and saves nothing, "allow once" writes that call through
// fs/write_text_file, a dismissed prompt writes nothing; an ordinary file
// is not asked about.
func TestACPTrustFiles(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.ws, ".git", "config"), "[core]\n")
	c := newACPClient()
	conn := startACP(t, e, c, true, "--approval-mode", "yolo")
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Reply(llmtest.ToolCallWithID("w-1", "write_file", map[string]any{"path": ".mcp.json", "content": "{}"}))
	e.srv.Reply(llmtest.ToolCallWithID("e-1", "edit_file", map[string]any{"path": ".git/config",
		"edits": []map[string]any{{"oldText": "[core]", "newText": "[core]\n\tfsmonitor = touch pwned"}}}))
	e.srv.Reply(llmtest.ToolCallWithID("w-2", "write_file", map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}))
	e.srv.Reply(llmtest.ToolCallWithID("w-3", "write_file", map[string]any{"path": "ok.txt", "content": "x"}))
	e.srv.Reply(llmtest.Text("Done."))
	c.answers = []string{"allow_always", "allow_once"}
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("plant")}); err != nil {
		t.Fatal(err)
	}
	if len(c.perms) != 3 {
		t.Fatalf("permission requests: %d, want 3 (the trust files only)", len(c.perms))
	}
	for i, p := range c.perms {
		var opts []string
		for _, o := range p.Options {
			opts = append(opts, string(o.OptionId)+":"+string(o.Kind))
		}
		why := p.ToolCall.Content[len(p.ToolCall.Content)-1].Content.Content.Text.Text
		if strings.Join(opts, " ") != "allow_once:allow_once deny:reject_once" || !strings.Contains(why, "A file that decides what runs: ") {
			t.Errorf("request %d: options %s, text %q", i, opts, why)
		}
	}
	var wrote []string
	for _, w := range c.writes {
		wrote = append(wrote, w.Path)
	}
	if want := filepath.Join(e.ws, ".git", "config") + " " + filepath.Join(e.ws, "ok.txt"); strings.Join(wrote, " ") != want {
		t.Errorf("fs/write_text_file: %v, want %s", wrote, want)
	}
	if prof, _ := os.ReadFile(filepath.Join(e.home, "profile.cue")); strings.Contains(string(prof), "always") {
		t.Errorf("an always answer to a trust file was saved:\n%s", prof)
	}
}

// The terminal prompt of `ollm run` names the trust file, offers no
// "always", and takes "a" as no: only "y" writes it.
func TestTerminalPromptTrustFile(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bus.Answer
	}{{"a\n", bus.Deny}, {"always\n", bus.Deny}, {"y\n", bus.AllowOnce}} {
		io, in, _, errOut := TestIO()
		in.WriteString(c.in)
		b := bus.New(bus.Options{})
		stop := answerOnTerminal(context.Background(), io, b)
		r, err := b.Ask(context.Background(), policy.Details{Tool: "write_file",
			Description: "Create .git/hooks/pre-commit - a file that decides what runs: .git/hooks/pre-commit belongs to git",
			Trust:       ".git/hooks/pre-commit belongs to git", Params: []byte(`{}`)})
		stop()
		if err != nil || r.Answer != c.want {
			t.Errorf("%q: answer %s, %v; want %s", c.in, r.Answer, err, c.want)
		}
		text := errOut.String()
		if !strings.Contains(text, "write_file: Create .git/hooks/pre-commit - a file that decides what runs") ||
			!strings.Contains(text, "Write this file that decides what runs? [y]es, this once, [N]o: ") || strings.Contains(text, "[a]lways") {
			t.Errorf("%q: the prompt:\n%s", c.in, text)
		}
	}
}
