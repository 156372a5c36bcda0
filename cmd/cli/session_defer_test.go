package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/runtime"
)

// First request within 50 ms (issue 29): a stdio server whose tools are
// cached does not start before the session's first model request has
// gone out, starts at once when a call needs it, and a server of those
// that then fails to start is a notice. The servers are gatedServers'
// python processes; each writes <name>-started when its process starts.
// Nothing here times ollm: the bounds only keep a broken build from
// hanging, and it then fails on what it did.

func started(e *sessionEnv, name string) string { return filepath.Join(e.ws, name+"-started") }

// primedServers sets up servers a and b, records their tools with one
// `ollm run -p`, and removes their start markers.
func primedServers(t *testing.T) *sessionEnv {
	t.Helper()
	e := newSessionEnv(t)
	gatedServers(t, e, map[string][]string{"a": {"a_echo"}, "b": {"b_echo"}})
	e.srv.Reply(llmtest.Text("one"))
	if out, err := runPrompt(t, e, "first"); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	for _, n := range []string{"a", "b"} {
		if !fileExists(started(e, n)) {
			t.Fatalf("server %s did not run in the first run", n)
		}
		if err := os.Remove(started(e, n)); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// awaitFiles waits until every path exists, up to 20 s; it reports those
// that do not.
func awaitFiles(paths ...string) []string {
	deadline := time.Now().Add(20 * time.Second)
	for {
		var missing []string
		for _, p := range paths {
			if !fileExists(p) {
				missing = append(missing, p)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			return missing
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// newDeferRuntime is a session's runtime (the TUI's and ACP's) without the
// start timer, as `ollm run` has it.
func newDeferRuntime(t *testing.T, e *sessionEnv, notice func(string)) *runtime.Runtime {
	t.Helper()
	rt, err := e.f.NewRuntime(context.Background(), runtime.Options{StartCachedAfter: -1, OnNotice: notice})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	if _, err := rt.WaitServersNotify(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return rt
}

// `ollm run -p`: no server process runs when the model gets the first
// request; while the model answers, both start.
func TestRunStartsCachedServersAfterFirstRequest(t *testing.T) {
	e := primedServers(t)
	reached, release := make(chan struct{}), make(chan struct{})
	e.srv.Reply(llmtest.Signal(reached), llmtest.Wait(release), llmtest.Text("done"))
	done := make(chan error, 1)
	var out string
	go func() {
		var err error
		out, err = runPrompt(t, e, "second")
		done <- err
	}()
	select {
	case <-reached:
	case err := <-done:
		t.Fatalf("the run ended before its first request: %v\n%s", err, out)
	}
	for _, n := range []string{"a", "b"} {
		if fileExists(started(e, n)) {
			t.Errorf("server %s (tools cached) started before the first request went out", n)
		}
	}
	if missing := awaitFiles(started(e, "a"), started(e, "b")); len(missing) > 0 {
		t.Errorf("after the first request went out, servers did not start: %v", missing)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}
}

// A session (the TUI, ACP): while nobody has sent a prompt, no server
// whose tools are cached runs (the marker is looked for as long as it
// takes both to start in the first run); a call to one of their tools
// before any request starts that server and gets its answer, the other
// stays unstarted; after the first request it starts too.
func TestCachedServerStartsWhenACallNeedsIt(t *testing.T) {
	e := primedServers(t)
	rt := newDeferRuntime(t, e, nil)
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) && !fileExists(started(e, "a")) && !fileExists(started(e, "b")) {
		time.Sleep(20 * time.Millisecond)
	}
	if fileExists(started(e, "a")) || fileExists(started(e, "b")) {
		t.Fatal("a server whose tools are cached started before any model request")
	}

	x, ok := rt.AgentTools().Get("a_echo")
	if !ok {
		t.Fatal("the cached tool a_echo is not offered")
	}
	inv, err := x.Build(json.RawMessage(`{"text":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := inv.Execute(ctx, nil)
	if err != nil || res.Error != nil || !strings.Contains(res.ForModel, "a: a_echo: hi") {
		t.Fatalf("the call to a's cached tool before any request: %+v, %v", res, err)
	}
	if fileExists(started(e, "b")) {
		t.Error("server b started for a call to a's tool")
	}

	cfg := rt.AgentConfig()
	s, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	e.srv.Reply(llmtest.Text("done"))
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if missing := awaitFiles(started(e, "b")); len(missing) > 0 {
		t.Error("server b did not start after the first request")
	}
}

// A server whose tools were offered from the cache and which then fails
// to start is a notice naming it, its error and its log.
func TestCachedServerThatFailsIsANotice(t *testing.T) {
	e := primedServers(t)
	e.write(filepath.Join(e.ws, "b-fail"), "")
	notices := make(chan string, 16)
	rt := newDeferRuntime(t, e, func(s string) { notices <- s })
	s, err := agent.New(rt.AgentConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	e.srv.Reply(llmtest.Text("done"))
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(e.srv.LastRequest()); !containsAll(got, "a_echo", "b_echo") {
		t.Errorf("the first request lacks the cached tools: %v", got)
	}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case n := <-notices:
			if strings.Contains(n, `MCP server "b" did not start`) {
				if !strings.Contains(n, "told to fail") && !strings.Contains(n, "tail -n 50") {
					t.Errorf("the notice names neither the error nor the log: %s", n)
				}
				return
			}
		case <-timeout:
			t.Fatal("no notice that server b did not start")
		}
	}
}

func containsAll(list []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, x := range list {
			found = found || x == w
		}
		if !found {
			return false
		}
	}
	return true
}
