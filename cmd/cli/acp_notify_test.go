package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// An extension's notification (the greeter example's persistent hook
// says it is ready at session_start) reaches the editor as a line of the
// agent's message, labelled with the extension.
func TestACPExtensionNotificationsReachTheEditor(t *testing.T) {
	e := newSessionEnv(t)
	greeter, err := filepath.Abs("../../examples/extensions/greeter")
	if err != nil {
		t.Fatal(err)
	}
	c := newACPClient()
	conn := startACP(t, e, c, false, "--ext", greeter)
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	c.answers = []string{"approve"}
	e.srv.Reply(llmtest.Text("ok"))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("hello")}); err != nil {
		t.Fatal(err)
	}
	c.waitFor(func(ups []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
		return strings.Contains(agentText(ups), "[greeter] info: greeter ready: try /hello\n")
	})
	if len(c.perms) != 1 || !strings.Contains(*c.perms[0].ToolCall.Title, "greeter") {
		t.Fatalf("permission requests: %+v", c.perms)
	}
}
