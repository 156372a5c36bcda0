package mcp

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/mcp/mcptest"
)

// Logging out revokes the tokens at an authorization server that
// advertises a revocation endpoint (RFC 7009): the refresh token, then
// the access token; both are dead at the server afterwards.
func TestRevokeAtLogout(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{Revocation: true})
	u := mcptest.StartProtectedServer(t, as)
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := Login(context.Background(), secureSpec(u), LoginOptions{TokenDir: tokens, OpenURL: (&mcptest.Browser{}).Open}); err != nil {
		t.Fatal(err)
	}
	rec, _ := readRecord(t, tokens)
	got, err := Revoke(context.Background(), tokens, "secure", http.DefaultClient)
	if err != nil || got.Endpoint != as.URL()+"/revoke" || !slices.Equal(got.Tokens, []string{"refresh_token", "access_token"}) {
		t.Fatalf("revoke: %+v %v", got, err)
	}
	if as.Valid(rec.Token.AccessToken) || as.ValidRefresh(rec.Token.RefreshToken) {
		t.Errorf("tokens still valid at the server")
	}
	if h := as.Revocations(); !slices.Equal(h, []string{"refresh_token", "access_token"}) {
		t.Errorf("revocation requests %v", h)
	}
	// Nothing stored: nothing to revoke, no request.
	if _, err := Logout(tokens, "secure"); err != nil {
		t.Fatal(err)
	}
	if got, err := Revoke(context.Background(), tokens, "secure", http.DefaultClient); err != nil || got.Endpoint != "" || len(as.Revocations()) != 2 {
		t.Errorf("after logout: %+v %v", got, err)
	}
}

// Without a revocation endpoint nothing is sent and the tokens stay valid
// at the server (only the local copy goes).
func TestRevokeWithoutEndpoint(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	u := mcptest.StartProtectedServer(t, as)
	tokens := t.TempDir()
	if err := Login(context.Background(), secureSpec(u), LoginOptions{TokenDir: tokens, OpenURL: (&mcptest.Browser{}).Open}); err != nil {
		t.Fatal(err)
	}
	rec, _ := readRecord(t, tokens)
	got, err := Revoke(context.Background(), tokens, "secure", http.DefaultClient)
	if err != nil || got.Endpoint != "" || len(got.Tokens) != 0 || !as.Valid(rec.Token.AccessToken) {
		t.Errorf("%+v %v", got, err)
	}
}

// A confidential pre-registered client authenticates at the revocation
// endpoint with its secret (HTTP basic), as at the token endpoint; a
// wrong secret is an error that names the endpoint.
func TestRevokeConfidentialClient(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{NoRegistration: true, Revocation: true, Clients: map[string]string{"ollm-team": "s3cret"}})
	u := mcptest.StartProtectedServer(t, as)
	spec := secureSpec(u)
	spec.OAuth = &OAuthClient{ClientID: "ollm-team", ClientSecret: "s3cret"}
	tokens := t.TempDir()
	if _, err := login(t, spec, tokens); err != nil {
		t.Fatal(err)
	}
	rec, _ := readRecord(t, tokens)
	bad := rec
	bad.ClientSecret = "wrong"
	if err := writeRecord(tokenPath(tokens, "secure"), bad); err != nil {
		t.Fatal(err)
	}
	if _, err := Revoke(context.Background(), tokens, "secure", http.DefaultClient); err == nil || !strings.Contains(err.Error(), "revocation endpoint "+as.URL()+"/revoke refused the refresh token: invalid_client") {
		t.Fatalf("wrong secret: %v", err)
	}
	if err := writeRecord(tokenPath(tokens, "secure"), rec); err != nil {
		t.Fatal(err)
	}
	got, err := Revoke(context.Background(), tokens, "secure", http.DefaultClient)
	if err != nil || len(got.Tokens) != 2 || as.Valid(rec.Token.AccessToken) {
		t.Errorf("%+v %v", got, err)
	}
}
