package mcp

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
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

// Dynamic registration says what ollm is: a native application.
func TestOAuthRegistersNative(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	u := mcptest.StartProtectedServer(t, as)
	if _, err := login(t, secureSpec(u), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if got := as.ApplicationTypes(); len(got) != 1 || got[0] != "native" {
		t.Errorf("application_type %q", got)
	}
}

// The server's protected resource metadata name a new authorization
// server: the stored client and refresh token are not sent there; ollm
// registers with it anew and logs in, once, and the call goes through.
// At logout the old tokens are not sent to the new server either.
func TestOAuthAuthorizationServerMoved(t *testing.T) {
	as1 := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{Revocation: true})
	as2 := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{Revocation: true})
	var cur atomic.Pointer[mcptest.AuthServer]
	cur.Store(as1)
	u := mcptest.StartServer(t, as1, mcptest.ServerOptions{Current: cur.Load})
	tokens := t.TempDir()
	if _, err := login(t, secureSpec(u), tokens); err != nil {
		t.Fatal(err)
	}
	old, _ := readRecord(t, tokens)
	if old.Issuer != as1.Issuer() {
		t.Fatalf("issuer %q", old.Issuer)
	}
	cur.Store(as2)
	if _, err := Revoke(context.Background(), tokens, "secure", http.DefaultClient); err == nil || !strings.Contains(err.Error(), "the authorization server changed from "+as1.Issuer()+" to "+as2.Issuer()) {
		t.Errorf("revoke: %v", err)
	}
	b := &mcptest.Browser{}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens, OpenURL: b.Open})
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"moved"}`, nil); res.ForModel != "moved" {
		t.Fatalf("%+v", res)
	}
	if reg, exch, refr, _ := as2.Counts(); reg != 1 || exch != 1 || refr != 0 {
		t.Errorf("as2: registrations %d exchanges %d refreshes %d", reg, exch, refr)
	}
	if slices.Contains(as2.ClientsSeen(), old.ClientID) || len(as2.Revocations()) != 0 {
		t.Errorf("as2 saw the old client %q: %q, revocations %q", old.ClientID, as2.ClientsSeen(), as2.Revocations())
	}
	if rec, _ := readRecord(t, tokens); rec.Issuer != as2.Issuer() || rec.ClientID == old.ClientID {
		t.Errorf("record %+v", rec)
	}
}

// A step-up after the server moved to another authorization server does
// not send the client given at the first login (registered at the old
// one) to the new one: ollm registers there and the call goes through.
func TestOAuthStepUpPreRegisteredMoved(t *testing.T) {
	as1 := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{NoRegistration: true, Clients: map[string]string{"pre": "pre-secret"}})
	as2 := mcptest.NewAuthServer(t)
	var named atomic.Pointer[mcptest.AuthServer]
	named.Store(as1)
	u := mcptest.StartServer(t, as1, mcptest.ServerOptions{Scope: "mcp:read", CallScope: "mcp:write", ResourceMetadataAS: named.Load})
	tokens := t.TempDir()
	spec := secureSpec(u)
	spec.OAuth = &OAuthClient{ClientID: "pre", ClientSecret: "pre-secret"}
	if _, err := login(t, spec, tokens); err != nil {
		t.Fatal(err)
	}
	if rec, _ := readRecord(t, tokens); !rec.PreRegistered || rec.Issuer != as1.Issuer() {
		t.Fatalf("record %+v", rec)
	}
	named.Store(as2)
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens, OpenURL: (&mcptest.Browser{}).Open})
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"moved and stepped up"}`, nil); res.ForModel != "moved and stepped up" {
		t.Fatalf("%+v", res)
	}
	if slices.Contains(as2.ClientsSeen(), "pre") {
		t.Errorf("the new authorization server saw the old client: %q", as2.ClientsSeen())
	}
	if reg, exch, _, _ := as2.Counts(); reg != 1 || exch != 1 {
		t.Errorf("as2: registrations %d exchanges %d", reg, exch)
	}
}
