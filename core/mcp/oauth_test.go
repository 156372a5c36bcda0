package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/ollm/ollm/core/mcp/mcptest"
)

func secureSpec(u string) Spec {
	return Spec{Name: "secure", Config: Config{Transport: TransportHTTP, URL: u, Enabled: true}}
}

func readRecord(t testing.TB, dir string) (tokenRecord, os.FileMode) {
	t.Helper()
	p := tokenPath(dir, "secure")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	var rec tokenRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	return rec, fi.Mode().Perm()
}

// TestOAuthLoginThroughTheManager: a server that answers 401 gets a
// browser login (discovery, registration, PKCE, loopback callback), the
// tokens are stored 0600, and the server's tools work.
func TestOAuthLoginThroughTheManager(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	srvURL := mcptest.StartProtectedServer(t, as)
	tokens := filepath.Join(t.TempDir(), "tokens")
	b := &mcptest.Browser{}
	m := startManager(t, []Spec{secureSpec(srvURL)}, Options{TokenDir: tokens, OpenURL: b.Open})
	if st := statusOf(m, "secure"); st.State != StateReady {
		t.Fatalf("%+v", st)
	}
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"behind oauth"}`, nil); res.ForModel != "behind oauth" {
		t.Fatalf("%+v", res)
	}
	if opened := b.Opened(); len(opened) != 1 || !strings.Contains(opened[0], "code_challenge_method=S256") || !strings.Contains(b.Pages()[0], "logged in to the MCP server secure") {
		t.Errorf("browser: %q %q", b.Opened(), b.Pages())
	}
	if !strings.HasPrefix(b.Pages()[0], "127.0.0.1:") {
		t.Errorf("the callback was not on 127.0.0.1: %q", b.Pages()[0])
	}
	rec, mode := readRecord(t, tokens)
	if mode != 0o600 || rec.URL != srvURL || rec.ClientID == "" || rec.Token.RefreshToken == "" || !strings.HasPrefix(rec.RedirectURI, "http://127.0.0.1:") {
		t.Errorf("token file mode %o, record %+v", mode, rec)
	}
	if fi, err := os.Stat(tokens); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("token directory: %v %v", fi.Mode(), err)
	}
	if reg, exch, refr, pkce := as.Counts(); reg != 1 || exch != 1 || refr != 0 || pkce != 0 {
		t.Errorf("registrations %d exchanges %d refreshes %d pkce failures %d", reg, exch, refr, pkce)
	}
}

// TestOAuthOverSSE: the same login and token over the older SSE transport,
// where the GET stream and the message endpoint both need the token.
func TestOAuthOverSSE(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	srvURL := mcptest.StartProtectedSSEServer(t, as)
	spec := Spec{Name: "secure", Config: Config{Transport: TransportSSE, URL: srvURL, Enabled: true}}
	tokens := filepath.Join(t.TempDir(), "tokens")
	m := startManager(t, []Spec{spec}, Options{TokenDir: tokens, OpenURL: (&mcptest.Browser{}).Open})
	if st := statusOf(m, "secure"); st.State != StateReady {
		t.Fatalf("%+v", st)
	}
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"sse behind oauth"}`, nil); res.ForModel != "sse behind oauth" {
		t.Fatalf("%+v", res)
	}
	if _, mode := readRecord(t, tokens); mode != 0o600 {
		t.Errorf("mode %o", mode)
	}
}

// TestOAuthHeadlessNeedsLogin: with no way to open a browser the server
// fails with an error that names it and the command to run.
func TestOAuthHeadlessNeedsLogin(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	srvURL := mcptest.StartProtectedServer(t, as)
	tokens := filepath.Join(t.TempDir(), "tokens")
	m := startManager(t, []Spec{secureSpec(srvURL)}, Options{TokenDir: tokens})
	st := statusOf(m, "secure")
	for _, want := range []string{`MCP server "secure"`, srvURL, "HTTP 401", "ollm mcp login secure"} {
		if st.State != StateFailed || !strings.Contains(st.Error, want) {
			t.Errorf("%s: %q does not mention %q", st.State, st.Error, want)
		}
	}
	if _, err := os.Stat(tokenPath(tokens, "secure")); !os.IsNotExist(err) {
		t.Errorf("token file written: %v", err)
	}
}

// TestOAuthRefresh: an expired token is refreshed before use, a token the
// server refuses (401) is refreshed and the call retried, and once the
// refresh token is gone too the call says to log in again.
func TestOAuthRefresh(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	srvURL := mcptest.StartProtectedServer(t, as)
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := Login(context.Background(), secureSpec(srvURL), LoginOptions{TokenDir: tokens, OpenURL: (&mcptest.Browser{}).Open}); err != nil {
		t.Fatal(err)
	}
	rec, _ := readRecord(t, tokens)
	first := rec.Token.AccessToken

	rec.Token.ExpiresAt = time.Now().Add(-time.Minute) // expired on disk
	if err := writeRecord(tokenPath(tokens, "secure"), rec); err != nil {
		t.Fatal(err)
	}
	m := startManager(t, []Spec{secureSpec(srvURL)}, Options{TokenDir: tokens}) // headless: no login possible
	if st := statusOf(m, "secure"); st.State != StateReady {
		t.Fatalf("after expiry: %+v", st)
	}
	rec, mode := readRecord(t, tokens)
	if _, _, refr, _ := as.Counts(); refr != 1 || rec.Token.AccessToken == first || mode != 0o600 || time.Until(rec.Token.ExpiresAt) < time.Hour-time.Minute {
		t.Fatalf("refreshes %d, token %+v, mode %o", refr, rec.Token, mode)
	}

	as.RevokeAccess() // the server now refuses the token: 401
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"after a 401"}`, nil); res.ForModel != "after a 401" {
		t.Fatalf("after a 401: %+v", res)
	}
	if _, _, refr, _ := as.Counts(); refr != 2 {
		t.Errorf("refreshes %d after the 401, want 2", refr)
	}

	as.RevokeAll()
	res := run(t, mustLookup(t, m, "echo"), `{"text":"x"}`, nil)
	if res.Error == nil || !strings.Contains(res.Error.Message, "ollm mcp login secure") {
		t.Errorf("with every token revoked: %+v", res)
	}
}

// TestOAuthTamperedStateIsRejected: a callback whose state is not the one
// ollm sent stores nothing and the code is never exchanged.
func TestOAuthTamperedStateIsRejected(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	srvURL := mcptest.StartProtectedServer(t, as)
	tokens := filepath.Join(t.TempDir(), "tokens")
	b := &mcptest.Browser{Tamper: func(q url.Values) { q.Set("state", "forged-"+q.Get("state")) }}
	err := Login(context.Background(), secureSpec(srvURL), LoginOptions{TokenDir: tokens, OpenURL: b.Open})
	if err == nil || !strings.Contains(err.Error(), "state is not the one ollm sent") || !strings.Contains(err.Error(), `MCP server "secure"`) {
		t.Fatalf("err %v", err)
	}
	if _, exch, _, _ := as.Counts(); exch != 0 {
		t.Errorf("%d code exchanges", exch)
	}
	if _, err := os.Stat(tokenPath(tokens, "secure")); !os.IsNotExist(err) {
		t.Errorf("token file written: %v", err)
	}
	if !strings.Contains(b.Pages()[0], "could not log in") {
		t.Errorf("browser page %q", b.Pages()[0])
	}
}

func TestOAuthLogout(t *testing.T) {
	as := mcptest.NewAuthServer(t)
	srvURL := mcptest.StartProtectedServer(t, as)
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := Login(context.Background(), secureSpec(srvURL), LoginOptions{TokenDir: tokens, OpenURL: (&mcptest.Browser{}).Open}); err != nil {
		t.Fatal(err)
	}
	if had, err := Logout(tokens, "secure"); !had || err != nil {
		t.Fatalf("logout: %v %v", had, err)
	}
	if had, err := Logout(tokens, "secure"); had || err != nil {
		t.Fatalf("second logout: %v %v", had, err)
	}
	m := startManager(t, []Spec{secureSpec(srvURL)}, Options{TokenDir: tokens})
	if st := statusOf(m, "secure"); !strings.Contains(st.Error, "ollm mcp login secure") {
		t.Errorf("after logout: %+v", st)
	}
}

func TestLoginRefusesServersWithoutOAuth(t *testing.T) {
	err := Login(context.Background(), Spec{Name: "open", Config: Config{Transport: TransportHTTP, URL: startHTTPFault(t, false) + "/mcp"}},
		LoginOptions{TokenDir: t.TempDir(), OpenURL: (&mcptest.Browser{}).Open})
	if err == nil || !strings.Contains(err.Error(), "does not ask for an OAuth login") {
		t.Errorf("err %v", err)
	}
	err = Login(context.Background(), Spec{Name: "local", Config: Config{Command: "x"}}, LoginOptions{OpenURL: (&mcptest.Browser{}).Open})
	if err == nil || !strings.Contains(err.Error(), "stdio") {
		t.Errorf("stdio: %v", err)
	}
}

func TestSameOriginMetadata(t *testing.T) {
	const srv = "https://mcp.example.test/v1/mcp"
	tests := map[string]string{
		`Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/v1/mcp"`: "https://mcp.example.test/.well-known/oauth-protected-resource/v1/mcp",
		`Bearer error="invalid_token", resource_metadata="https://MCP.example.test/prm"`:                  "https://MCP.example.test/prm",
		`Bearer resource_metadata="https://evil.example.test/prm"`:                                        "", // another host
		`Bearer resource_metadata="http://mcp.example.test/prm"`:                                          "", // another scheme
		`Bearer resource_metadata="/relative"`:                                                            "",
		`Bearer realm="x"`:                                                                                "",
		`Bearer resource_metadata="unterminated`:                                                          "",
	}
	for in, want := range tests {
		if got := sameOriginMetadata(in, srv); got != want {
			t.Errorf("sameOriginMetadata(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckMetadata(t *testing.T) {
	defaults := transport.AuthServerMetadata{Issuer: "https://as", AuthorizationEndpoint: "https://as/authorize",
		TokenEndpoint: "https://as/token", RegistrationEndpoint: "https://as/register"}
	tests := []struct {
		md            transport.AuthServerMetadata
		preRegistered bool
		want          string
	}{
		{transport.AuthServerMetadata{CodeChallengeMethodsSupported: []string{"plain", "S256"}, RegistrationEndpoint: "https://as/register"}, false, ""},
		{transport.AuthServerMetadata{RegistrationEndpoint: "https://as/register"}, false, "PKCE with S256"},
		{transport.AuthServerMetadata{CodeChallengeMethodsSupported: []string{"plain"}, RegistrationEndpoint: "https://as/register"}, false, "PKCE with S256"},
		{transport.AuthServerMetadata{CodeChallengeMethodsSupported: []string{"S256"}}, false, "dynamic client registration"},
		{transport.AuthServerMetadata{CodeChallengeMethodsSupported: []string{"S256"}}, true, ""},
		{defaults, false, ""}, // 2025-03-26: no document, the default endpoints
	}
	for _, tt := range tests {
		err := checkMetadata(&tt.md, tt.preRegistered)
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.md, err, tt.want)
		}
	}
}

func TestTokenHelpers(t *testing.T) {
	if a, b := tokenPath("/t", "a.b"), tokenPath("/t", "a_b"); a == b || b != "/t/a_b.json" || !strings.HasPrefix(a, "/t/a_b-") {
		t.Errorf("tokenPath: %q %q", a, b)
	}
	now := time.Now()
	for _, tt := range []struct {
		at   time.Time
		want bool
	}{{time.Time{}, false}, {now.Add(time.Hour), false}, {now.Add(10 * time.Second), true}, {now.Add(-time.Second), true}} {
		if got := expired(transport.Token{ExpiresAt: tt.at}, now); got != tt.want {
			t.Errorf("expired(%v) = %v", tt.at, got)
		}
	}
	for typ, want := range map[string]string{"": "Bearer t", "bearer": "Bearer t", "BEARER": "Bearer t", "DPoP": "DPoP t"} {
		if got := authorization(transport.Token{TokenType: typ, AccessToken: "t"}); got != want {
			t.Errorf("authorization(%q) = %q", typ, got)
		}
	}
}
