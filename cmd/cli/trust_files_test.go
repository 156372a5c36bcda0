package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
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
