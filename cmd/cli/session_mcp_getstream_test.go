package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/cmd/cli/tui"
	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/mcp/mcptest"
	"github.com/ollm/ollm/core/runtime"
)

// Server-initiated requests on the standalone GET stream of streamable
// HTTP reach the confirmation bus as stdio's do (TestMCPElicitationThroughTheBus,
// TestMCPSamplingThroughTheBus): the server (mcptest.GetStreamServer) is
// asked by a tool call that returns at once, then sends its request with
// the call over, on the GET stream, and records the answer it gets back.

// getStreamRuntime is a runtime whose profile runs a GetStreamServer as
// "gs" over streamable HTTP.
func getStreamRuntime(t *testing.T, e *sessionEnv) (*runtime.Runtime, *mcptest.GetStreamServer) {
	t.Helper()
	gs := mcptest.StartGetStreamServer(t)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
mcp: servers: gs: {transport: "http", url: "`+gs.URL+`"}
`)
	rt := e.runtime(runtime.Options{})
	if st, _ := rt.ServerStatus("gs"); st.State != "ready" || st.Protocol != "2025-11-25" {
		t.Fatalf("the GET stream server: %+v", st)
	}
	return rt, gs
}

// askLater calls gs's ask-later tool, which returns before the server
// asks, and returns the answer the server then records (its n-th).
func askLater(t *testing.T, rt *runtime.Runtime, gs *mcptest.GetStreamServer, n int, kind, message string) mcptest.Answer {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"kind": kind, "message": message})
	if out := callMCP(t, rt, "ask-later", string(args)); !strings.Contains(out, "asked later") {
		t.Fatalf("ask-later: %s", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	answers, err := gs.WaitAnswers(ctx, n)
	if err != nil {
		t.Fatalf("the server got %d answers, want %d: %v", len(answers), n, err)
	}
	want := map[string]string{mcptest.AskElicit: "elicitation/create", mcptest.AskSample: "sampling/createMessage"}[kind]
	if on := gs.OnGetStream(); len(on) < n || on[n-1] != want {
		t.Fatalf("requests on the GET stream: %v, want %s as number %d", on, want, n)
	}
	return answers[n-1]
}

// An elicitation on the GET stream is asked on the bus: with no answerer
// it is declined, allowed the answer's feedback is the content, denied it
// is declined.
func TestMCPElicitationOnTheGetStreamThroughTheBus(t *testing.T) {
	e := newSessionEnv(t)
	rt, gs := getStreamRuntime(t, e)

	t.Run("no answerer", func(t *testing.T) {
		a := askLater(t, rt, gs, 1, mcptest.AskElicit, "Your name, please")
		if a.Err != "" || a.Action != "decline" {
			t.Fatalf("headless elicitation: %+v", a)
		}
	})
	t.Run("allow", func(t *testing.T) {
		ans := answerWith(t, rt.Bus, bus.AllowOnce, `{"name": "Ada Lovelace"}`)
		a := askLater(t, rt, gs, 2, mcptest.AskElicit, "Your name, please")
		if a.Err != "" || a.Action != "accept" || !reflect.DeepEqual(a.Content, map[string]any{"name": "Ada Lovelace"}) {
			t.Fatalf("the server got %+v", a)
		}
		asked := ans.details()
		if len(asked) != 1 || asked[0].Tool != tui.ElicitTool || asked[0].Reason != `MCP server "gs" asks for input` {
			t.Fatalf("asked %+v", asked)
		}
		var p struct {
			Server, Message string
			Schema          struct{ Properties map[string]any }
		}
		if err := json.Unmarshal(asked[0].Params, &p); err != nil || p.Server != "gs" || p.Message != "Your name, please" ||
			p.Schema.Properties["name"] == nil {
			t.Fatalf("params %s (%v)", asked[0].Params, err)
		}
	})
	t.Run("deny", func(t *testing.T) {
		answerWith(t, rt.Bus, bus.Deny, "")
		a := askLater(t, rt, gs, 3, mcptest.AskElicit, "Your name, please")
		if a.Err != "" || a.Action != "decline" || len(a.Content) != 0 {
			t.Fatalf("denied elicitation: %+v", a)
		}
	})
}

// A sampling request on the GET stream reaches the session's model only
// when the user allows it on the bus, and the completion goes back to
// the server.
func TestMCPSamplingOnTheGetStreamThroughTheBus(t *testing.T) {
	e := newSessionEnv(t)
	rt, gs := getStreamRuntime(t, e)

	t.Run("allow", func(t *testing.T) {
		ans := answerWith(t, rt.Bus, bus.AllowOnce, "")
		e.srv.Reply(llmtest.Text("forty-two, says the fake model"))
		a := askLater(t, rt, gs, 1, mcptest.AskSample, "what is six times seven?")
		if a.Err != "" || a.Text != "forty-two, says the fake model" || a.Model != "test-model" {
			t.Fatalf("the server got %+v", a)
		}
		req := e.srv.LastRequest()
		var roles, texts []string
		for _, m := range req.Messages {
			roles = append(roles, m.Role)
			texts = append(texts, m.Content)
		}
		if !reflect.DeepEqual(roles, []string{"system", "user"}) || texts[0] != mcptest.GetStreamSystemPrompt ||
			texts[1] != "what is six times seven?" || len(req.Tools) != 0 {
			t.Fatalf("the model got %v %q, tools %v", roles, texts, toolNames(req))
		}
		asked := ans.details()
		if len(asked) != 1 || asked[0].Tool != tui.SampleTool || !strings.Contains(string(asked[0].Params), "what is six times seven?") ||
			!strings.Contains(string(asked[0].Params), `"maxTokens":40`) || !strings.Contains(asked[0].Reason, `"gs"`) {
			t.Fatalf("asked %+v", asked)
		}
	})
	t.Run("deny", func(t *testing.T) {
		before := len(e.srv.Requests())
		answerWith(t, rt.Bus, bus.Deny, "")
		a := askLater(t, rt, gs, 2, mcptest.AskSample, "anything")
		if !strings.Contains(a.Err, "did not allow") || a.Text != "" {
			t.Fatalf("denied sampling: %+v", a)
		}
		if n := len(e.srv.Requests()); n != before {
			t.Fatalf("the model got %d request(s) after a refusal", n-before)
		}
	})
}
