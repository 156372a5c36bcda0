package mcp

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/mcp/mcptest"
)

// dpopLogin logs in to a server whose authorization server is shaped by
// ao and the server by so, through a Manager, calls echo and returns the
// stored record.
func dpopLogin(t *testing.T, ao mcptest.AuthOptions, so mcptest.ServerOptions) (*mcptest.AuthServer, string, string) {
	t.Helper()
	as := mcptest.NewAuthServerWith(t, ao)
	u := mcptest.StartServer(t, as, so)
	tokens := t.TempDir()
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens, OpenURL: (&mcptest.Browser{}).Open})
	if st := statusOf(m, "secure"); st.State != StateReady {
		t.Fatalf("%+v (refusals %q)", st, as.DPoPRefusals())
	}
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"proven"}`, nil); res.ForModel != "proven" {
		t.Fatalf("%+v (refusals %q)", res, as.DPoPRefusals())
	}
	return as, u, tokens
}

// An authorization server that advertises DPoP (RFC 9449): ollm makes a
// key for the server (kept 0600 in the token record), proves possession
// at the token endpoint, and sends the bound token as "DPoP" with a fresh
// proof (htm, htu, ath, a new jti) on every request: the stand-in
// verifies each proof, refuses a replayed jti and any Bearer use of the
// token, and saw no refusal. A refresh is proven with the same key.
func TestOAuthDPoP(t *testing.T) {
	as, u, tokens := dpopLogin(t, mcptest.AuthOptions{DPoP: true}, mcptest.ServerOptions{})
	rec, mode := readRecord(t, tokens)
	key, err := parseDPoPKey(rec.DPoPKey)
	if err != nil || mode != 0o600 || !strings.EqualFold(rec.Token.TokenType, "DPoP") {
		t.Fatalf("record: key %v, mode %o, token type %q", err, mode, rec.Token.TokenType)
	}
	if got := as.BoundKey(rec.Token.AccessToken); got == "" || got != key.jkt {
		t.Fatalf("token bound to %q, the stored key is %q", got, key.jkt)
	}
	if r := as.DPoPRefusals(); len(r) != 0 {
		t.Fatalf("refusals: %q", r)
	}
	// The stand-in refuses the token used as a bearer token.
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+rec.Token.AccessToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bearer use: %v %v", resp, err)
	}
	resp.Body.Close()

	// Expired on disk: the refresh is proven with the same key.
	rec.Token.ExpiresAt = time.Now().Add(-time.Minute)
	if err := writeRecord(tokenPath(tokens, "secure"), rec); err != nil {
		t.Fatal(err)
	}
	m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens})
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"refreshed"}`, nil); res.ForModel != "refreshed" {
		t.Fatalf("%+v (refusals %q)", res, as.DPoPRefusals())
	}
	if _, _, refreshes, _ := as.Counts(); refreshes != 1 {
		t.Errorf("%d refreshes", refreshes)
	}
	after, _ := readRecord(t, tokens)
	if after.DPoPKey != rec.DPoPKey || as.BoundKey(after.Token.AccessToken) != key.jkt {
		t.Errorf("the refreshed token is not bound to the same key")
	}
	if r := as.DPoPRefusals(); len(r) != 1 || !strings.Contains(r[0], "presented as Bearer") {
		t.Errorf("refusals: %q", r)
	}
}

// Servers that require nonces (RFC 9449 §8, §9): the token endpoint's
// use_dpop_nonce and the resource's each get the request once more with
// the nonce; the resource's nonce is kept for the next requests, so it
// asks once.
func TestOAuthDPoPNonce(t *testing.T) {
	as, _, _ := dpopLogin(t, mcptest.AuthOptions{DPoP: true, DPoPNonce: "as-nonce"}, mcptest.ServerOptions{DPoP: true, DPoPNonce: "rs-nonce"})
	if r := as.DPoPRefusals(); len(r) != 0 {
		t.Fatalf("refusals: %q", r)
	}
	if tok, res := as.NonceChallenges(); tok != 1 || res != 1 {
		t.Errorf("nonce challenges: token endpoint %d, resource %d; want 1 and 1", tok, res)
	}
}

// An authorization server that does not advertise DPoP, behind a server
// whose challenge uses the DPoP scheme: ollm proves possession all the
// same, and the token it gets is bound.
func TestOAuthDPoPByChallenge(t *testing.T) {
	as, _, tokens := dpopLogin(t, mcptest.AuthOptions{DPoPQuiet: true}, mcptest.ServerOptions{DPoP: true})
	rec, _ := readRecord(t, tokens)
	if as.BoundKey(rec.Token.AccessToken) == "" || len(as.DPoPRefusals()) != 0 {
		t.Errorf("token type %q, refusals %q", rec.Token.TokenType, as.DPoPRefusals())
	}
}

// A JWT access token with cnf.jkt is bound whatever token_type says: it
// goes out as DPoP, never as Bearer.
func TestOAuthDPoPBoundJWT(t *testing.T) {
	as, _, tokens := dpopLogin(t, mcptest.AuthOptions{DPoP: true, DPoPJWT: true}, mcptest.ServerOptions{})
	rec, _ := readRecord(t, tokens)
	if rec.Token.TokenType != "Bearer" || jwtConfirmation(rec.Token.AccessToken) == "" || len(as.DPoPRefusals()) != 0 {
		t.Errorf("token type %q, refusals %q", rec.Token.TokenType, as.DPoPRefusals())
	}
}

// client_credentials at a DPoP authorization server: the grant carries a
// proof and the token is bound.
func TestOAuthClientCredentialsDPoP(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{DPoP: true, DPoPNonce: "n1", Clients: map[string]string{"svc": "s3cret"}})
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{})
	spec := secureSpec(u)
	spec.OAuth = &OAuthClient{ClientID: "svc", ClientSecret: "s3cret", Grant: GrantClientCredentials}
	tokens := t.TempDir()
	if err := Login(context.Background(), spec, LoginOptions{TokenDir: tokens}); err != nil {
		t.Fatal(err)
	}
	m := startManager(t, []Spec{spec}, Options{TokenDir: tokens})
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"machine"}`, nil); res.ForModel != "machine" {
		t.Fatalf("%+v (refusals %q)", res, as.DPoPRefusals())
	}
	rec, _ := readRecord(t, tokens)
	if as.BoundKey(rec.Token.AccessToken) == "" || len(as.DPoPRefusals()) != 0 {
		t.Errorf("token type %q, refusals %q", rec.Token.TokenType, as.DPoPRefusals())
	}
}
