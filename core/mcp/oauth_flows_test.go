package mcp

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollm/ollm/core/mcp/mcptest"
)

// login runs Login for spec with a browser and a fresh token directory.
func login(t *testing.T, spec Spec, tokens string) (*mcptest.Browser, error) {
	t.Helper()
	b := &mcptest.Browser{}
	err := Login(context.Background(), spec, LoginOptions{TokenDir: tokens, OpenURL: b.Open, Timeout: 20 * time.Second})
	if err != nil {
		err = fmt.Errorf("%w (browser: %q)", err, b.Pages())
	}
	return b, err
}

// A server whose tools need a scope the first login did not ask for
// answers 403 insufficient_scope; the client logs in again asking for the
// old scopes and the new one, and the call goes through.
func TestOAuthStepUp(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{Scope: "mcp:read", CallScope: "mcp:write"})
	b := &mcptest.Browser{}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: t.TempDir(), OpenURL: b.Open})
	if st := statusOf(m, "secure"); st.State != StateReady {
		t.Fatalf("%+v", st)
	}
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"stepped up"}`, nil); res.ForModel != "stepped up" {
		t.Fatalf("%+v", res)
	}
	if got := strings.Join(as.ScopesAsked(), "|"); got != "mcp:read|mcp:read mcp:write" {
		t.Errorf("scopes asked %q", got)
	}
	if len(b.Opened()) != 2 {
		t.Errorf("browser opened %d times", len(b.Opened()))
	}
}

// An authorization server that never grants the scope: one step-up
// asking for it; the server still refuses, and as another login would ask
// for the same scopes there is none (no loop): the call fails saying which
// scope and what to run; later calls do not open the browser again.
func TestOAuthStepUpLimit(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{Withhold: "mcp:write"})
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{Scope: "mcp:read", CallScope: "mcp:write"})
	b := &mcptest.Browser{}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: t.TempDir(), OpenURL: b.Open})
	for i := 0; i < 3; i++ {
		res := run(t, mustLookup(t, m, "echo"), `{"text":"x"}`, nil)
		want := `MCP tool secure:echo: the server refused the call for lack of OAuth scope (HTTP 403 insufficient_scope, it wants "mcp:read mcp:write"); run in a terminal: ollm mcp login secure --scope "mcp:read mcp:write"`
		if res.Error == nil || res.Error.Message != want {
			t.Fatalf("call %d: %+v", i, res.Error)
		}
	}
	if n := len(b.Opened()); n != 2 {
		t.Errorf("browser opened %d times, want 2 (the login and one step-up)", n)
	}
}

// Without a terminal there is no step-up: the error says what to run.
func TestOAuthStepUpWithoutTerminal(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{Scope: "mcp:read", CallScope: "mcp:write"})
	tokens := t.TempDir()
	if _, err := login(t, secureSpec(u), tokens); err != nil {
		t.Fatal(err)
	}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens})
	res := run(t, mustLookup(t, m, "echo"), `{"text":"x"}`, nil)
	if res.Error == nil || !strings.Contains(res.Error.Message, `run in a terminal: ollm mcp login secure --scope "mcp:read mcp:write"`) {
		t.Fatalf("%+v", res.Error)
	}
}

// An authorization server without dynamic registration: a login without
// a client id says to register and pass --client-id; with the client
// registered beforehand it works.
func TestOAuthPreRegisteredClient(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{NoRegistration: true, Clients: map[string]string{"ollm-team": "s3cret"}})
	u := mcptest.StartProtectedServer(t, as)
	_, err := login(t, secureSpec(u), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "offers no dynamic client registration (RFC 7591); register ollm there yourself and log in with --client-id") {
		t.Fatalf("%v", err)
	}
	spec := secureSpec(u)
	spec.OAuth = &OAuthClient{ClientID: "ollm-team", ClientSecret: "s3cret", Scopes: []string{"mcp"}}
	tokens := t.TempDir()
	if _, err := login(t, spec, tokens); err != nil {
		t.Fatal(err)
	}
	rec, _ := readRecord(t, tokens)
	if rec.ClientID != "ollm-team" || !rec.PreRegistered || strings.Join(rec.Scopes, " ") != "mcp" {
		t.Errorf("record %+v", rec)
	}
	m := startManager(t, []Spec{spec}, Options{TokenDir: tokens})
	if st := statusOf(m, "secure"); st.State != StateReady {
		t.Fatalf("%+v", st)
	}
	if reg, _, _, _ := as.Counts(); reg != 0 {
		t.Errorf("%d registrations", reg)
	}
}

// An authorization server whose issuer has a path is found at
// /.well-known/oauth-authorization-server/tenant1 (RFC 8414 §3).
func TestOAuthIssuerWithPath(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{Path: "/tenant1"})
	u := mcptest.StartProtectedServer(t, as)
	tokens := t.TempDir()
	b, err := login(t, secureSpec(u), tokens)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Opened()) != 1 || !strings.HasPrefix(b.Opened()[0], as.Issuer()+"/authorize?") {
		t.Errorf("opened %q", b.Opened())
	}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens})
	if st := statusOf(m, "secure"); st.State != StateReady {
		t.Fatalf("%+v", st)
	}
}

// 2025-03-26 servers publish no protected resource metadata: the
// authorization server's metadata are at the root of the MCP server's
// origin (the path discarded), or, without any, the endpoints are the
// defaults /authorize, /token and /register there.
func TestOAuth20250326(t *testing.T) {
	for _, tc := range []struct{ name, metadata, prefix string }{
		{"root metadata", "/.well-known/oauth-authorization-server", "/oauth"},
		{"default endpoints", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := mcptest.NewAuthServer(t)
			u := mcptest.StartServer(t, as, mcptest.ServerOptions{NoResourceMetadata: true,
				Mount: func(mux *http.ServeMux, _ string) { as.Mount(mux, tc.metadata, tc.prefix) }})
			tokens := t.TempDir()
			b, err := login(t, secureSpec(u), tokens)
			if err != nil {
				t.Fatal(err)
			}
			origin := strings.TrimSuffix(u, "/mcp")
			if len(b.Opened()) != 1 || !strings.HasPrefix(b.Opened()[0], origin+tc.prefix+"/authorize?") {
				t.Errorf("opened %q", b.Opened())
			}
			m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens})
			if st := statusOf(m, "secure"); st.State != StateReady {
				t.Fatalf("%+v", st)
			}
			// A refresh finds the same token endpoint.
			as.RevokeAccess()
			if res := run(t, mustLookup(t, m, "echo"), `{"text":"refreshed"}`, nil); res.ForModel != "refreshed" {
				t.Fatalf("after revoking: %+v", res)
			}
		})
	}
}

func writeKey(t *testing.T, key crypto.Signer) string {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// client_credentials: no user, no browser. The client authenticates with
// its secret or with a JWT signed by its private key (EC or RSA); an
// expired or revoked token is fetched again the same way.
func TestOAuthClientCredentials(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{Clients: map[string]string{"svc": "s3cret"},
		ClientKeys: map[string]crypto.PublicKey{"svc-ec": &ec.PublicKey, "svc-rsa": &rk.PublicKey}})
	u := mcptest.StartProtectedServer(t, as)
	for name, oc := range map[string]OAuthClient{
		"secret": {ClientID: "svc", ClientSecret: "s3cret"},
		"ec key": {ClientID: "svc-ec", PrivateKeyFile: writeKey(t, ec)},
		"rsa":    {ClientID: "svc-rsa", PrivateKeyFile: writeKey(t, rk), KeyID: "k1"},
	} {
		t.Run(name, func(t *testing.T) {
			oc.Grant, oc.Scopes = GrantClientCredentials, []string{"mcp"}
			spec := secureSpec(u)
			spec.OAuth = &oc
			before := as.CredentialGrants()
			m := startManager(t, []Spec{spec}, Options{TokenDir: t.TempDir()}) // no OpenURL: nobody to ask
			if st := statusOf(m, "secure"); st.State != StateReady {
				t.Fatalf("%+v", st)
			}
			as.RevokeAccess()
			if res := run(t, mustLookup(t, m, "echo"), `{"text":"machine"}`, nil); res.ForModel != "machine" {
				t.Fatalf("%+v", res)
			}
			if n := as.CredentialGrants() - before; n != 2 {
				t.Errorf("%d client_credentials grants, want 2", n)
			}
		})
	}
	spec := secureSpec(u)
	spec.OAuth = &OAuthClient{ClientID: "svc", ClientSecret: "wrong", Grant: GrantClientCredentials}
	m := startManager(t, []Spec{spec}, Options{TokenDir: t.TempDir()})
	if st := statusOf(m, "secure"); st.State != StateFailed || !strings.Contains(st.Error, "client credentials: the token endpoint "+as.URL()+"/token refused: invalid_client") {
		t.Fatalf("%+v", st)
	}
}

func TestChallengeParam(t *testing.T) {
	h := `Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/y", realm=plain`
	for k, want := range map[string]string{"error": "insufficient_scope", "scope": "a b", "resource_metadata": "https://x/y", "realm": "plain", "missing": ""} {
		if got := challengeParam(h, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// A client ID metadata document: the client id is the document's URL,
// the authorization server fetches it, and nothing is registered.
func TestOAuthClientMetadataDocument(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{NoRegistration: true, MetadataDocuments: true})
	u := mcptest.StartProtectedServer(t, as)
	var docURL string
	doc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"client_id": %q, "client_name": "ollm", "redirect_uris": ["http://127.0.0.1/callback"], "token_endpoint_auth_method": "none"}`, docURL)
	}))
	t.Cleanup(doc.Close)
	docURL = doc.URL + "/ollm.json"
	spec := secureSpec(u)
	spec.OAuth = &OAuthClient{MetadataURL: docURL}
	tokens := t.TempDir()
	if _, err := login(t, spec, tokens); err != nil {
		t.Fatal(err)
	}
	if rec, _ := readRecord(t, tokens); rec.ClientID != docURL {
		t.Errorf("client id %q", rec.ClientID)
	}
	m := startManager(t, []Spec{spec}, Options{TokenDir: tokens})
	if st := statusOf(m, "secure"); st.State != StateReady {
		t.Fatalf("%+v", st)
	}
	if reg, _, _, _ := as.Counts(); reg != 0 {
		t.Errorf("%d registrations", reg)
	}
}

// A 401 that names no resource_metadata: the client finds the protected
// resource metadata at the RFC 9728 well-known URI, path-aware first
// (/.well-known/oauth-protected-resource/mcp), then at the root. Login
// works with the metadata at either, in that order, and so does a
// refresh (the server refuses the token; discovery runs again).
func TestOAuthResourceMetadataWellKnown(t *testing.T) {
	for _, tc := range []struct {
		name string
		root bool
		want string // the well-known paths asked for at login
	}{
		{"path-aware", false, "/.well-known/oauth-protected-resource/mcp"},
		{"root", true, "/.well-known/oauth-protected-resource/mcp /.well-known/oauth-protected-resource"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := mcptest.NewAuthServer(t)
			var mu sync.Mutex
			var asked []string
			u := mcptest.StartServer(t, as, mcptest.ServerOptions{UnnamedResourceMetadata: true, ResourceMetadataAtRoot: tc.root,
				OnRequest: func(r *http.Request) {
					if strings.HasPrefix(r.URL.Path, "/.well-known/") {
						mu.Lock()
						asked = append(asked, r.URL.Path)
						mu.Unlock()
					}
				}})
			wellKnown := func() string {
				mu.Lock()
				defer mu.Unlock()
				s := strings.Join(asked, " ")
				asked = nil
				return s
			}
			tokens := t.TempDir()
			b, err := login(t, secureSpec(u), tokens)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Opened()) != 1 || !strings.HasPrefix(b.Opened()[0], as.Issuer()+"/authorize?") {
				t.Errorf("opened %q", b.Opened())
			}
			if got := wellKnown(); got != tc.want {
				t.Errorf("well-known paths asked at login: %q, want %q", got, tc.want)
			}
			m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens})
			if st := statusOf(m, "secure"); st.State != StateReady {
				t.Fatalf("%+v", st)
			}
			as.RevokeAccess() // a 401 on the next call: refresh
			if res := run(t, mustLookup(t, m, "echo"), `{"text":"refreshed"}`, nil); res.ForModel != "refreshed" {
				t.Fatalf("after a 401: %+v", res)
			}
			if _, _, refr, _ := as.Counts(); refr != 1 {
				t.Errorf("refreshes %d, want 1", refr)
			}
			if got := wellKnown(); got != tc.want {
				t.Errorf("well-known paths asked at the refresh: %q, want %q", got, tc.want)
			}
		})
	}
}

// A private_key_jwt assertion's audience is the issuer identifier, path
// included (the stand-in refuses the token endpoint as audience).
func TestOAuthAssertionAudienceIsIssuer(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{Path: "/tenant1", ClientKeys: map[string]crypto.PublicKey{"svc": &ec.PublicKey}})
	u := mcptest.StartProtectedServer(t, as)
	spec := secureSpec(u)
	spec.OAuth = &OAuthClient{ClientID: "svc", PrivateKeyFile: writeKey(t, ec), Grant: GrantClientCredentials}
	if err := Login(context.Background(), spec, LoginOptions{TokenDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if n := as.CredentialGrants(); n != 1 {
		t.Errorf("%d grants", n)
	}
}
