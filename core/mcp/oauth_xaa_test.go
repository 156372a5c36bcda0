package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/mcp/mcptest"
)

// Cross-app access (enterprise-managed authorization): with the
// enterprise IdP's ID token in a file and no browser, ollm exchanges it
// at the IdP (RFC 8693: an ID-JAG for the authorization server's issuer
// and the MCP server) and presents the ID-JAG with the jwt-bearer grant;
// the token is stored like any login's, without the ID token. An expired
// access token is fetched again the same way (the file is read again). At
// a DPoP authorization server the token is bound.
func TestOAuthCrossAppAccess(t *testing.T) {
	for _, dpop := range []bool{false, true} {
		t.Run(map[bool]string{false: "bearer", true: "dpop"}[dpop], func(t *testing.T) {
			idp := mcptest.NewIdP(t, mcptest.IdPOptions{ClientID: "ollm-idp", ClientSecret: "idp-secret", ASClientID: "ollm-xaa"})
			as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{NoRegistration: true, DPoP: dpop,
				Clients: map[string]string{"ollm-xaa": "xaa-secret"}, TrustIdP: idp})
			u := mcptest.StartServer(t, as, mcptest.ServerOptions{Scope: "mcp:read"})
			idFile := filepath.Join(t.TempDir(), "id-token")
			idToken := idp.IDToken("alice@example.com", time.Hour)
			if err := os.WriteFile(idFile, []byte(idToken+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			spec := secureSpec(u)
			spec.OAuth = &OAuthClient{ClientID: "ollm-xaa", ClientSecret: "xaa-secret", Grant: GrantJWTBearer,
				CrossApp: &CrossApp{IDTokenFile: idFile, Issuer: idp.Issuer(), ClientID: "ollm-idp", ClientSecret: "idp-secret"}}
			tokens := t.TempDir()
			if err := Login(context.Background(), spec, LoginOptions{TokenDir: tokens}); err != nil { // no browser
				t.Fatal(err)
			}
			ex := idp.Exchanges()
			if len(ex) != 1 {
				t.Fatalf("%d token exchanges", len(ex))
			}
			for k, want := range map[string]string{"audience": as.Issuer(), "resource": u, "subject_token": idToken,
				"requested_token_type": "urn:ietf:params:oauth:token-type:id-jag", "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
				"authenticated_client": "ollm-idp", "scope": "mcp:read"} {
				if got := ex[0].Get(k); got != want {
					t.Errorf("exchange %s = %q, want %q", k, got, want)
				}
			}
			if got := as.JAGResources(); len(got) != 1 || got[0] != u {
				t.Errorf("ID-JAG resources %q", got)
			}
			rec, mode := readRecord(t, tokens)
			data, _ := os.ReadFile(tokenPath(tokens, "secure"))
			if mode != 0o600 || rec.Grant != GrantJWTBearer || rec.IDTokenFile != idFile || strings.Contains(string(data), idToken) {
				t.Errorf("record mode %o grant %q file %q; holds the ID token: %v", mode, rec.Grant, rec.IDTokenFile, strings.Contains(string(data), idToken))
			}
			if dpop != (as.BoundKey(rec.Token.AccessToken) != "") {
				t.Errorf("DPoP %v, token bound to %q", dpop, as.BoundKey(rec.Token.AccessToken))
			}
			m := startManager(t, []Spec{secureSpec(u)}, Options{TokenDir: tokens}) // the profile's spec, no terminal
			as.RevokeAccess()
			if res := run(t, mustLookup(t, m, "echo"), `{"text":"cross-app"}`, nil); res.ForModel != "cross-app" {
				t.Fatalf("%+v (refusals %q)", res, as.DPoPRefusals())
			}
			if n := len(idp.Exchanges()); n != 2 {
				t.Errorf("%d token exchanges after the token was refused, want 2", n)
			}
		})
	}
}

// A refused exchange names the IdP and its error, never the ID token
// (which this IdP quotes back) or a secret.
func TestOAuthCrossAppRefused(t *testing.T) {
	idp := mcptest.NewIdP(t, mcptest.IdPOptions{ClientID: "ollm-idp", ASClientID: "ollm-xaa"})
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{Clients: map[string]string{"ollm-xaa": ""}, TrustIdP: idp})
	u := mcptest.StartServer(t, as, mcptest.ServerOptions{})
	expired := idp.IDToken("alice@example.com", -time.Minute)
	spec := secureSpec(u)
	spec.OAuth = &OAuthClient{ClientID: "ollm-xaa", Grant: GrantJWTBearer,
		CrossApp: &CrossApp{IDToken: expired, TokenEndpoint: idp.Issuer() + "/token", ClientID: "ollm-idp"}}
	err := Login(context.Background(), spec, LoginOptions{TokenDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "refused the token exchange: invalid_grant") || strings.Contains(err.Error(), expired) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("%v", err)
	}
	// A public client at both: client_id in the forms.
	spec.OAuth.CrossApp.IDToken = idp.IDToken("alice@example.com", time.Hour)
	if err := Login(context.Background(), spec, LoginOptions{TokenDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if ex := idp.Exchanges(); ex[len(ex)-1].Get("authenticated_client") != "ollm-idp" {
		t.Errorf("%v", ex[len(ex)-1])
	}
}
