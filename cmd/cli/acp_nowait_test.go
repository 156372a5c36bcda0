package cli

import (
	"context"
	"slices"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// ACP (issue 29, nothing waits): an editor's first prompt goes to the
// model while both stdio servers are held at initialize, offering the
// tools the tool cache holds for them; the servers never answered.
func TestACPFirstPromptOffersCachedTools(t *testing.T) {
	e := primedServers(t)
	closeGates(t, e, "a", "b")
	reached := make(chan struct{})
	e.srv.Reply(llmtest.Signal(reached), llmtest.Text("done"))
	c := newACPClient()
	conn := startACP(t, e, c, false)
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("hi")})
		done <- err
	}()
	waitOrOpen(t, e, reached, "a", "b")
	for _, n := range []string{"a", "b"} {
		if fileExists(answered(e, n)) {
			t.Errorf("server %s answered initialize before the first request", n)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if names := toolNames(e.srv.LastRequest()); !slices.Contains(names, "a_echo") || !slices.Contains(names, "b_echo") {
		t.Errorf("the first request offered %v, want the cached a_echo and b_echo", names)
	}
}
