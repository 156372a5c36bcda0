package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ollm/ollm/cmd/cli/tui"
	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/runtime"
)

// everythingRuntime is a runtime whose profile runs server-everything as
// "everything"; it returns once the server's elicitation and sampling
// tools (offered after initialize, with tools/list_changed) are there.
func everythingRuntime(t *testing.T, e *sessionEnv) *runtime.Runtime {
	t.Helper()
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
mcp: servers: everything: {command: "node", args: ["`+everythingScript(t)+`", "stdio"]}
`)
	ready := make(chan struct{})
	var once sync.Once
	rt := e.runtime(runtime.Options{OnMCP: func(ev mcp.Event) {
		var names []string
		for _, tl := range ev.Tools {
			names = append(names, tl.Name())
		}
		if slices.Contains(names, "trigger-elicitation-request") && slices.Contains(names, "trigger-sampling-request") {
			once.Do(func() { close(ready) })
		}
	}})
	<-ready
	return rt
}

// answerer answers every confirmation on rt's bus with answer and
// feedback and records what was asked.
type answerer struct {
	mu    sync.Mutex
	asked []policy.Details
}

func answerWith(t *testing.T, b *bus.Bus, a bus.Answer, feedback string) *answerer {
	ctx, cancel := context.WithCancel(context.Background())
	ch := b.Subscribe(ctx, bus.Answerer)
	ans := &answerer{}
	done := make(chan struct{})
	// Once the test is over this answerer answers nothing more.
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ev := range ch {
			if ev.Kind != bus.Requested {
				continue
			}
			ans.mu.Lock()
			ans.asked = append(ans.asked, ev.Request.Details)
			ans.mu.Unlock()
			_ = b.Respond(bus.Response{ID: ev.Request.ID, Answer: a, Feedback: feedback})
		}
	}()
	return ans
}

func (a *answerer) details() []policy.Details {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.asked)
}

// callMCP runs an MCP tool of the runtime's profile servers; failures of
// the call are part of the text.
func callMCP(t *testing.T, rt *runtime.Runtime, name, params string) string {
	t.Helper()
	tl, ok := rt.MCPManager().Lookup(name)
	if !ok {
		t.Fatalf("no MCP tool %s", name)
	}
	inv, err := tl.Build([]byte(params))
	if err != nil {
		t.Fatal(err)
	}
	res, err := inv.Execute(context.Background(), nil)
	if err != nil {
		return "call error: " + err.Error()
	}
	out := res.ForModel + "\n" + res.Display
	if res.Error != nil {
		out += "\nerror: " + res.Error.Error()
	}
	return out
}

// Issue 5: a server's elicitation is asked on the bus; the answer's
// feedback is the content, deny declines, and with no answerer the bus
// denies at once, which declines.
func TestMCPElicitationThroughTheBus(t *testing.T) {
	e := newSessionEnv(t)
	rt := everythingRuntime(t, e)

	t.Run("no answerer", func(t *testing.T) {
		out := callMCP(t, rt, "trigger-elicitation-request", `{}`)
		if !strings.Contains(out, "User declined") {
			t.Fatalf("headless elicitation: %s", out)
		}
	})
	t.Run("allow", func(t *testing.T) {
		a := answerWith(t, rt.Bus, bus.AllowOnce, `{"name": "Ada Lovelace", "check": true, "integer": 7}`)
		out := callMCP(t, rt, "trigger-elicitation-request", `{}`)
		for _, want := range []string{"Name: Ada Lovelace", "Agreed to terms: true", "Favorite Integer: 7"} {
			if !strings.Contains(out, want) {
				t.Fatalf("result lacks %q: %s", want, out)
			}
		}
		asked := a.details()
		if len(asked) != 1 || asked[0].Tool != tui.ElicitTool || asked[0].Reason != `MCP server "everything" asks for input` {
			t.Fatalf("asked %+v", asked)
		}
		var p struct {
			Server, Message string
			Schema          struct{ Properties map[string]any }
		}
		if err := json.Unmarshal(asked[0].Params, &p); err != nil || p.Server != "everything" ||
			!strings.Contains(p.Message, "Please provide inputs") || p.Schema.Properties["name"] == nil {
			t.Fatalf("params %s (%v)", asked[0].Params, err)
		}
	})
	t.Run("deny", func(t *testing.T) {
		answerWith(t, rt.Bus, bus.Deny, "")
		out := callMCP(t, rt, "trigger-elicitation-request", `{}`)
		if !strings.Contains(out, "User declined") || strings.Contains(out, "User provided") {
			t.Fatalf("denied elicitation: %s", out)
		}
	})
}

// Issue 5: a sampling request reaches the session's model only when the
// user allows it on the bus.
func TestMCPSamplingThroughTheBus(t *testing.T) {
	e := newSessionEnv(t)
	rt := everythingRuntime(t, e)

	t.Run("allow", func(t *testing.T) {
		a := answerWith(t, rt.Bus, bus.AllowOnce, "")
		e.srv.Reply(llmtest.Text("forty-two, says the fake model"))
		out := callMCP(t, rt, "trigger-sampling-request", `{"prompt": "what is six times seven?", "maxTokens": 50}`)
		if !strings.Contains(out, "forty-two, says the fake model") || !strings.Contains(out, `"model": "test-model"`) {
			t.Fatalf("sampling result: %s", out)
		}
		req := e.srv.LastRequest()
		var roles, texts []string
		for _, m := range req.Messages {
			roles = append(roles, m.Role)
			texts = append(texts, m.Content)
		}
		if !reflect.DeepEqual(roles, []string{"system", "user"}) || texts[0] != "You are a helpful test server." ||
			!strings.Contains(texts[1], "what is six times seven?") {
			t.Fatalf("the model got %v %q", roles, texts)
		}
		if len(req.Tools) != 0 {
			t.Fatalf("sampling offered tools: %v", toolNames(req))
		}
		asked := a.details()
		if len(asked) != 1 || asked[0].Tool != tui.SampleTool || !strings.Contains(string(asked[0].Params), "what is six times seven?") ||
			!strings.Contains(string(asked[0].Params), `"maxTokens":50`) || !strings.Contains(asked[0].Reason, `"everything"`) {
			t.Fatalf("asked %+v", asked)
		}
	})
	t.Run("deny", func(t *testing.T) {
		before := len(e.srv.Requests())
		answerWith(t, rt.Bus, bus.Deny, "")
		out := callMCP(t, rt, "trigger-sampling-request", `{"prompt": "anything", "maxTokens": 10}`)
		if !strings.Contains(out, "refused") || !strings.Contains(out, "did not allow") {
			t.Fatalf("denied sampling: %s", out)
		}
		if n := len(e.srv.Requests()); n != before {
			t.Fatalf("the model got %d request(s) after a refusal", n-before)
		}
	})
}

// Issue 5: the prompts of an extension's own MCP servers are skills like
// the profile servers' prompts, and go with the extension.
func TestExtensionMCPPromptsAreSkills(t *testing.T) {
	e := newSessionEnv(t)
	exts := filepath.Join(e.home, "extensions")
	e.extension(exts, "greeter", `, "mcpServers": {"every": {"command": "node", "args": ["`+everythingScript(t)+`", "stdio"]}}`)
	rt := e.runtime(runtime.Options{})
	var found bool
	for _, x := range rt.Skills.List() {
		if x.Extension == "greeter" && x.Skill.Name == "args-prompt" && x.Source == "mcp" {
			found = true
		}
	}
	if !found {
		t.Fatalf("the extension server's args-prompt is not a skill: %+v", rt.Skills.List())
	}
	got, err := rt.Skills.Render("greeter:args-prompt", map[string]string{"city": "Lyon", "state": "Rhone"})
	if err != nil || got != "What's weather in Lyon, Rhone?" {
		t.Fatalf("render = %q, %v", got, err)
	}
	s := e.session(rt)
	if err := os.RemoveAll(filepath.Join(exts, "greeter")); err != nil {
		t.Fatal(err)
	}
	if _, err := reloadSession(context.Background(), rt, s); err != nil {
		t.Fatal(err)
	}
	for _, x := range rt.Skills.List() {
		if x.Extension == "greeter" {
			t.Fatalf("skill %s of the removed extension is left", x.Qualified())
		}
	}
}
