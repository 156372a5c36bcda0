package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/mcp/mcptest"
)

// Shapes of the official conformance suite's servers, second round.

// A 2026-07-28 server that lets initialize through to a handler refusing
// it for lack of the MCP-Protocol-Version header (400, not 401) and
// challenges server/discover: Login finds the challenge by asking as a
// 2026-07-28 client starts, and the tokens serve the Manager after.
func TestOAuthLoginProtocolHeaderServer(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{AfterInitialize: true, RequireProtocolHeader: true, Scope: "mcp:basic"})
	tokens := t.TempDir()
	if _, err := login(t, secureSpec(u), tokens); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(as.ScopesAsked(), "|"); got != "mcp:basic" {
		t.Errorf("scopes asked %q", got)
	}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens})
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"with the header"}`, nil); res.ForModel != "with the header" {
		t.Fatalf("%+v", res)
	}
}

// A challenge that names no scope: the login asks for every scope the
// protected resource metadata list in scopes_supported (MCP's scope
// selection strategy), and for none when they list none.
func TestOAuthScopesFromResourceMetadata(t *testing.T) {
	for _, tc := range []struct {
		name      string
		supported []string
		unnamed   bool
		want      string
	}{
		{"named", []string{"mcp:basic", "mcp:read", "mcp:write"}, false, "mcp:basic mcp:read mcp:write"},
		{"well-known", []string{"mcp:basic", "mcp:read"}, true, "mcp:basic mcp:read"},
		{"none", nil, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := mcptest.NewAuthServer(t)
			u := mcptest.StartServer(t, as, mcptest.ServerOptions{ScopesSupported: tc.supported, UnnamedResourceMetadata: tc.unnamed})
			if _, err := login(t, secureSpec(u), t.TempDir()); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(as.ScopesAsked(), "|"); got != tc.want {
				t.Errorf("scopes asked %q, want %q", got, tc.want)
			}
		})
	}
}

// A server that sends a call's elicitation on the GET stream drops it
// when the stream is not open yet (the suite's TypeScript server does):
// a connection is ready only once its GET stream is open, so the first
// call's elicitation reaches the client even when the GET is slow.
func TestFirstCallAfterGetStreamOpen(t *testing.T) {
	gs := mcptest.StartGetStreamServerWith(t, mcptest.GetStreamOptions{HoldGet: 300 * time.Millisecond})
	m := startManager(t, []Spec{{Name: "gs", Config: Config{Transport: TransportHTTP, URL: gs.URL, Enabled: true}}}, Options{})
	if res := run(t, mustLookup(t, m, "gs:"+mcptest.AskNow), `{}`, nil); res.ForModel != "answered: decline" {
		t.Fatalf("%+v", res)
	}
}

// A session that cannot open a browser and meets insufficient_scope
// naming only the new scope says which login to run: one asking for the
// scopes of the last login too (the union a step-up asks for, SEP-2350),
// so the new token does not lose what the old one could do.
func TestStepUpCommandNamesUnion(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{Scope: "mcp:basic", CallScope: "mcp:write", CallScopeAlone: true})
	tokens := t.TempDir()
	if _, err := login(t, secureSpec(u), tokens); err != nil {
		t.Fatal(err)
	}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens})
	res := run(t, mustLookup(t, m, "echo"), `{"text":"x"}`, nil)
	want := `it wants "mcp:write"); run in a terminal: ollm mcp login secure --scope "mcp:basic mcp:write"`
	if res.Error == nil || !strings.Contains(res.Error.Message, want) {
		t.Fatalf("%+v\nwant %s", res, want)
	}
}

// A token refused and not refreshable, with no terminal: the message
// names the server's own login command (`--url URL` for an ad-hoc
// server), not `ollm mcp login <name>`, which for "adhoc" logs in to
// nothing.
func TestRefusedTokenNamesLoginCommand(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{})
	spec := secureSpec(u)
	spec.LoginCommand = "ollm mcp login --url " + u
	tokens := t.TempDir()
	if _, err := login(t, spec, tokens); err != nil {
		t.Fatal(err)
	}
	m := startManager(t, []Spec{spec}, Options{TokenDir: tokens})
	as.RevokeAll()
	res := run(t, mustLookup(t, m, "echo"), `{"text":"x"}`, nil)
	want := "could not be refreshed; run in a terminal: ollm mcp login --url " + u
	if res.Error == nil || !strings.HasSuffix(res.Error.Message, want) {
		t.Fatalf("%+v\nwant %s", res, want)
	}
}

// Workload identity federation (the suite's auth/wif-jwt-bearer): the
// workload's own JWT, whose audience is the authorization server, is
// presented with the jwt-bearer grant from a public client, with no
// browser and no exchange; an expired access token is fetched again from
// the file. A JWT for another audience is refused, and the error does
// not quote it.
func TestOAuthWorkloadIdentity(t *testing.T) {
	idp := mcptest.NewIdP(t, mcptest.IdPOptions{})
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{NoRegistration: true, TrustWorkload: idp, Clients: map[string]string{"workload": ""}})
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{})
	file := filepath.Join(t.TempDir(), "jwt")
	if err := os.WriteFile(file, []byte(idp.WorkloadJWT("svc", as.Issuer(), time.Hour)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := secureSpec(u)
	spec.OAuth = &OAuthClient{ClientID: "workload", Grant: GrantJWTBearer, CrossApp: &CrossApp{Workload: true, IDTokenFile: file}}
	tokens := t.TempDir()
	b, err := login(t, spec, tokens)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Opened()) != 0 {
		t.Errorf("browser opened %q", b.Opened())
	}
	m := startManager(t, []Spec{spec}, Options{TokenDir: tokens})
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"workload"}`, nil); res.ForModel != "workload" {
		t.Fatalf("%+v", res)
	}
	as.RevokeAll()
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"again"}`, nil); res.ForModel != "again" {
		t.Fatalf("after the token was revoked: %+v", res)
	}
	if _, exchanges, _, _ := as.Counts(); exchanges != 2 {
		t.Errorf("%d jwt-bearer grants, want 2", exchanges)
	}

	wrong := idp.WorkloadJWT("svc", "https://elsewhere.example", time.Hour)
	spec.OAuth = &OAuthClient{ClientID: "workload", Grant: GrantJWTBearer, CrossApp: &CrossApp{Workload: true, IDToken: wrong}}
	_, err = login(t, spec, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "workload identity: presenting the workload's JWT") || !strings.Contains(err.Error(), "invalid_grant") || strings.Contains(err.Error(), wrong) {
		t.Fatalf("err %v", err)
	}
}
