package cli

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// An MCP server of ollm's (server-everything in the user profile) asking
// for a completion of the session's model is asked in the editor: allowed,
// the model answers it; refused, the model gets no request. Its form
// elicitation, which needs typed answers, is declined with the reason in a
// thought, without a question.
func TestACPMCPSamplingAndElicitationInTheEditor(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
mcp: servers: everything: {command: "node", args: ["`+everythingScript(t)+`", "stdio"]}
`)
	ctx := context.Background()
	c := newACPClient()
	conn := startACP(t, e, c, false, "--approval-mode", "yolo")
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	// prompt runs a turn and returns the last tool result the model read.
	prompt := func(words string) []string {
		t.Helper()
		if pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text(words)}); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %q: %+v %v", words, pr, err)
		}
		var results []string
		for _, m := range e.srv.LastRequest().Messages {
			if m.Role == "tool" {
				results = append(results, m.Content)
			}
		}
		if len(results) > 1 {
			results = results[len(results)-1:]
		}
		return results
	}
	// The server offers its sampling and elicitation tools once it has
	// seen the client's capabilities (tools/list_changed): a prompt sees
	// them after that.
	for i := 0; ; i++ {
		e.srv.Reply(llmtest.Text("ok"))
		prompt("hi")
		if tools := toolNames(e.srv.LastRequest()); slices.Contains(tools, "trigger-sampling-request") && slices.Contains(tools, "trigger-elicitation-request") {
			break
		}
		if i == 200 {
			t.Fatalf("server-everything's request tools never came: %v", toolNames(e.srv.LastRequest()))
		}
	}
	c.take()

	e.srv.Reply(llmtest.ToolCall("trigger-sampling-request", map[string]any{"prompt": "what is six times seven?", "maxTokens": 50}))
	e.srv.Reply(llmtest.Text("forty-two, says the fake model"))
	e.srv.Reply(llmtest.Text("Done."))
	c.answers = []string{"allow_once"}
	results := prompt("sample")
	if len(c.perms) != 1 {
		t.Fatalf("permission requests: %+v", c.perms)
	}
	p := c.perms[0]
	var shown strings.Builder
	for _, cc := range p.ToolCall.Content {
		if cc.Content != nil && cc.Content.Content.Text != nil {
			shown.WriteString(cc.Content.Content.Text.Text)
		}
	}
	var opts []string
	for _, o := range p.Options {
		opts = append(opts, string(o.OptionId))
	}
	if !strings.Contains(*p.ToolCall.Title, `MCP server "everything" wants a completion from the session's model (at most 50 tokens)`) ||
		!strings.Contains(shown.String(), "System prompt: You are a helpful test server.") || !strings.Contains(shown.String(), "what is six times seven?") ||
		strings.Join(opts, " ") != "allow_once deny" {
		t.Errorf("the question: %q, %q, %v", *p.ToolCall.Title, shown.String(), opts)
	}
	if len(results) != 1 || !strings.Contains(results[0], "forty-two, says the fake model") {
		t.Errorf("allowed sampling: %q", results)
	}

	before := len(e.srv.Requests())
	e.srv.Reply(llmtest.ToolCall("trigger-sampling-request", map[string]any{"prompt": "anything", "maxTokens": 10}))
	e.srv.Reply(llmtest.Text("Done."))
	c.answers = []string{"deny"}
	results = prompt("sample again")
	if len(results) != 1 || !strings.Contains(results[0], "did not allow") {
		t.Errorf("refused sampling: %q", results)
	}
	if n := len(e.srv.Requests()) - before; n != 2 {
		t.Errorf("the model got %d requests for a refused sampling turn, want 2 (the prompt, after the tool)", n)
	}

	c.take()
	asked := len(c.perms)
	e.srv.Reply(llmtest.ToolCall("trigger-elicitation-request", map[string]any{}))
	e.srv.Reply(llmtest.Text("Done."))
	results = prompt("elicit")
	if len(c.perms) != asked {
		t.Errorf("a form elicitation was asked in the editor: %+v", c.perms[asked:])
	}
	if len(results) != 1 || !strings.Contains(results[0], "User declined") {
		t.Errorf("form elicitation: %q", results)
	}
	if th := thoughtText(c.take()); !strings.Contains(th, "MCP server everything asked for input; declined: it asks for typed answers (") ||
		!strings.Contains(th, "ACP has no form") {
		t.Errorf("the editor was not told: %q", th)
	}
}
