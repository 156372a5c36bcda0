package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// everything finds server-everything (make deps, or OLLM_NPM_DIR).
func everything(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("OLLM_NPM_DIR")
	if dir == "" {
		wd, _ := os.Getwd()
		for d := wd; filepath.Dir(d) != d; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, ".deps", "npm", "node_modules")); err == nil {
				dir = filepath.Join(d, ".deps", "npm")
				break
			}
		}
	}
	p := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("server-everything is not installed (%v); run make deps", err)
	}
	return p
}

// In a real terminal: the workspace's MCP server is listed for approval at
// the start and runs only once approved; an "always" answer is saved to
// the user profile; /model switches the model in the status line; /reload
// reports its counts and keeps the approved server.
func TestTmuxApprovalsAlwaysModelReload(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(home, "profile.cue"), `model: name: "test-model"
policy: rules: [{name: "echo-ask", tool: "everything:echo", action: "ask"}]
`)
	write(t, filepath.Join(ws, "ollm.cue"), `mcp: servers: everything: {command: "node", args: ["`+everything(t)+`", "stdio"]}
`)
	srv := llmtest.NewOllama(t)
	srv.AddModel(llmtest.Model{Name: "other-model"})
	srv.Reply(llmtest.ToolCall("echo", map[string]any{"message": "from tmux"}))
	srv.Reply(llmtest.Text("The server echoed."))
	srv.Reply(llmtest.Text("Now on the other model."))

	s := startTmux(t, tmp, bin, ws, home, srv.URL, 140, 45)

	s.waitFor("Approve before the session starts", "mcp everything from this workspace: node", "[a] approve")
	s.tmux("send-keys", "-t", s.name, "a")
	s.waitFor("approved mcp everything", "everything:ready")

	s.tmux("send-keys", "-t", s.name, "-l", "echo something")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("echo-ask", "[a] allow always")
	s.tmux("send-keys", "-t", s.name, "a")
	s.waitFor("The server echoed.", "saved 1 allow rule(s) for everything:echo")
	if prof := read(t, filepath.Join(home, "profile.cue")); !strings.Contains(prof, `tool: "everything:echo"`) || !strings.Contains(prof, `action: "allow"`) {
		t.Fatalf("the always answer is not in the user profile:\n%s", prof)
	}

	s.tmux("send-keys", "-t", s.name, "-l", "/model other-model")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("model other-model for the rest of the session", "model other-model │")
	s.tmux("send-keys", "-t", s.name, "-l", "/reload")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("reloaded: stopped 1,", "everything:ready")
	s.tmux("send-keys", "-t", s.name, "-l", "and now?")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("Now on the other model.")

	s.tmux("send-keys", "-t", s.name, "-l", "/quit")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("[exited 0]")
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[2].Model != "other-model" {
		t.Fatalf("requests: %d, last model %q", len(reqs), reqs[len(reqs)-1].Model)
	}
}
