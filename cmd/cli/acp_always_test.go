package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// A shell call with a sub-command offers the narrower "always" beside
// the wide one, as the TUI does; choosing it saves the program and
// sub-command only: the same sub-command is not asked again, another one
// of the program still is.
func TestACPAlwaysAllowSubcommandOnly(t *testing.T) {
	e := newSessionEnv(t)
	c := newACPClient()
	conn := startACP(t, e, c, false)
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	prompt := func(id, command string, answers ...string) {
		t.Helper()
		e.srv.Reply(llmtest.ToolCallWithID(id, "shell", map[string]any{"command": command}))
		e.srv.Reply(llmtest.Text("Done."))
		c.mu.Lock()
		c.answers, c.perms = answers, nil
		c.mu.Unlock()
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("run it")}); err != nil {
			t.Fatal(err)
		}
	}

	prompt("sh-1", "go version", "allow_always_narrow")
	if len(c.perms) != 1 {
		t.Fatalf("permission requests: %d", len(c.perms))
	}
	var opts []string
	for _, o := range c.perms[0].Options {
		opts = append(opts, string(o.OptionId)+":"+string(o.Kind))
	}
	why := c.perms[0].ToolCall.Content[len(c.perms[0].ToolCall.Content)-1].Content.Content.Text.Text
	if strings.Join(opts, " ") != "allow_once:allow_once allow_always:allow_always allow_always_narrow:allow_always deny:reject_once" ||
		!strings.Contains(why, "The sub-command only saves: ") || !strings.Contains(why, "go version") {
		t.Fatalf("options %s, text %q", opts, why)
	}
	if got := lastStatus(c.take(), "sh-1"); got != sdk.ToolCallStatusCompleted {
		t.Fatalf("sh-1: %s", got)
	}
	prof, _ := os.ReadFile(filepath.Join(e.home, "profile.cue"))
	if !strings.Contains(string(prof), "go version") {
		t.Fatalf("the sub-command rule is not in the user profile:\n%s", prof)
	}

	prompt("sh-2", "go version -m /dev/null")
	if len(c.perms) != 0 {
		t.Fatalf("the allowed sub-command was asked again: %+v", c.perms[0].ToolCall)
	}
	prompt("sh-3", "go env GOOS", "deny")
	if len(c.perms) != 1 || lastStatus(c.take(), "sh-3") != sdk.ToolCallStatusFailed {
		t.Fatalf("another sub-command of go was not asked: %d", len(c.perms))
	}
}
