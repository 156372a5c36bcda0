package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/mcp/mcptest"
)

// A server that lets initialize through and challenges only from
// tools/list on: Login finds the challenge by asking for the tools, asks
// for the scope it names, and the Manager connects through it.
func TestOAuthLoginAfterInitialize(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{AfterInitialize: true, Scope: "mcp:basic"})
	if _, err := login(t, secureSpec(u), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(as.ScopesAsked(), "|"); got != "mcp:basic" {
		t.Errorf("scopes asked %q", got)
	}
	b := &mcptest.Browser{}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: t.TempDir(), OpenURL: b.Open})
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"after initialize"}`, nil); res.ForModel != "after initialize" {
		t.Fatalf("%+v", res)
	}
	if len(b.Opened()) != 1 {
		t.Errorf("browser opened %d times", len(b.Opened()))
	}
}

// A server that challenges tools/call alone but publishes protected
// resource metadata is logged in to (mcp login's probe sees no 401); a
// Manager with a terminal logs in at the first call's 401. One with
// neither challenge nor metadata is refused as before.
func TestOAuthLoginByResourceMetadata(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{OnlyCalls: true})
	tokens := t.TempDir()
	if _, err := login(t, secureSpec(u), tokens); err != nil {
		t.Fatal(err)
	}
	if _, exchanges, _, _ := as.Counts(); exchanges != 1 {
		t.Errorf("%d exchanges", exchanges)
	}
	b := &mcptest.Browser{}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: t.TempDir(), OpenURL: b.Open})
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"late challenge"}`, nil); res.ForModel != "late challenge" {
		t.Fatalf("%+v", res)
	}
	if len(b.Opened()) != 1 {
		t.Errorf("browser opened %d times", len(b.Opened()))
	}
	err := Login(context.Background(), Spec{Name: "open", Config: Config{Transport: TransportHTTP, URL: startHTTPFault(t, false) + "/mcp"}},
		LoginOptions{TokenDir: t.TempDir(), OpenURL: (&mcptest.Browser{}).Open, Timeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "publishes no protected resource metadata: it does not ask for an OAuth login") {
		t.Fatalf("err %v", err)
	}
}

// insufficient_scope on a 401 (not only a 403) after initialize: the
// client logs in again with the union of scopes and retries the call once.
func TestOAuthStepUpOn401(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{AfterInitialize: true, Scope: "mcp:basic", CallScope: "mcp:write", CallScopeStatus: 401})
	b := &mcptest.Browser{}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: t.TempDir(), OpenURL: b.Open})
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"stepped up"}`, nil); res.ForModel != "stepped up" {
		t.Fatalf("%+v", res)
	}
	if got := strings.Join(as.ScopesAsked(), "|"); got != "mcp:basic|mcp:basic mcp:write" {
		t.Errorf("scopes asked %q", got)
	}
	if _, _, refreshes, _ := as.Counts(); refreshes != 0 {
		t.Errorf("%d refreshes: an insufficient_scope 401 is not an expired token", refreshes)
	}
}

// Without a terminal, a 401 insufficient_scope names the server, the
// scope and the command.
func TestOAuthStepUpOn401WithoutTerminal(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{Scope: "mcp:basic", CallScope: "mcp:write", CallScopeStatus: 401})
	tokens := t.TempDir()
	if _, err := login(t, secureSpec(u), tokens); err != nil {
		t.Fatal(err)
	}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens})
	res := run(t, mustLookup(t, m, "echo"), `{"text":"x"}`, nil)
	if res.Error == nil || !strings.Contains(res.Error.Message, `MCP tool secure:echo: the server refused the call for lack of OAuth scope`) ||
		!strings.Contains(res.Error.Message, `run in a terminal: ollm mcp login secure --scope "mcp:basic mcp:write"`) {
		t.Fatalf("%+v", res.Error)
	}
}
