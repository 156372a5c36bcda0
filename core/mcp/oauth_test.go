package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// authServer is an OAuth 2.1 authorization server on loopback: RFC 8414
// metadata, RFC 7591 registration, an authorize endpoint that approves at
// once and redirects to the client's loopback callback, and a token
// endpoint that checks the PKCE verifier and rotates refresh tokens.
type authServer struct {
	t   testing.TB
	srv *httptest.Server

	mu        sync.Mutex
	clients   map[string][]string // client_id → redirect URIs
	codes     map[string]grant
	access    map[string]bool
	refresh   map[string]bool
	expiresIn int

	registrations, exchanges, refreshes, pkceFailures int
}

type grant struct{ client, redirect, challenge string }

func newAuthServer(t testing.TB) *authServer {
	a := &authServer{t: t, clients: map[string][]string{}, codes: map[string]grant{},
		access: map[string]bool{}, refresh: map[string]bool{}, expiresIn: 3600}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	mux.HandleFunc("POST /register", a.register)
	mux.HandleFunc("GET /authorize", a.authorize)
	mux.HandleFunc("POST /token", a.token)
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

func (a *authServer) metadata(w http.ResponseWriter, r *http.Request) {
	u := a.srv.URL
	writeJSONResp(w, http.StatusOK, map[string]any{
		"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
		"registration_endpoint": u + "/register", "response_types_supported": []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
	})
}

func (a *authServer) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.RedirectURIs) == 0 || !strings.HasPrefix(req.RedirectURIs[0], "http://127.0.0.1:") {
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_redirect_uri"})
		return
	}
	id := randomString()
	a.mu.Lock()
	a.clients[id] = req.RedirectURIs
	a.registrations++
	a.mu.Unlock()
	writeJSONResp(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
}

// authorize approves at once: the test's "browser" is the user.
func (a *authServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	defer a.mu.Unlock()
	uris := a.clients[q.Get("client_id")]
	if q.Get("response_type") != "code" || len(uris) == 0 || uris[0] != q.Get("redirect_uri") ||
		q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256" {
		http.Error(w, "bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
		return
	}
	code := randomString()
	a.codes[code] = grant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge")}
	back := q.Get("redirect_uri") + "?" + url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
	http.Redirect(w, r, back, http.StatusFound)
}

func (a *authServer) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	a.mu.Lock()
	defer a.mu.Unlock()
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		g, ok := a.codes[r.Form.Get("code")]
		delete(a.codes, r.Form.Get("code"))
		if !ok || g.client != r.Form.Get("client_id") || g.redirect != r.Form.Get("redirect_uri") {
			writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			a.pkceFailures++
			writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
			return
		}
		a.exchanges++
	case "refresh_token":
		if !a.refresh[r.Form.Get("refresh_token")] {
			writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(a.refresh, r.Form.Get("refresh_token")) // rotation
		a.refreshes++
	default:
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	at, rt := randomString(), randomString()
	a.access[at], a.refresh[rt] = true, true
	writeJSONResp(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "bearer", "refresh_token": rt, "expires_in": a.expiresIn})
}

func (a *authServer) valid(token string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.access[token]
}

// revokeAccess invalidates every access token (refresh tokens stay).
func (a *authServer) revokeAccess() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access = map[string]bool{}
}

func (a *authServer) revokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access, a.refresh = map[string]bool{}, map[string]bool{}
}

func (a *authServer) counts() (reg, exch, refr, pkce int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.registrations, a.exchanges, a.refreshes, a.pkceFailures
}

func writeJSONResp(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func randomString() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// startProtectedServer runs an MCP server (mcp-go's streamable HTTP server
// with an echo tool) that requires a bearer token the authorization
// server issued: without one it answers 401 with a WWW-Authenticate
// challenge naming its protected resource metadata (RFC 9728).
func startProtectedServer(t testing.TB, as *authServer) string {
	s := mcpserver.NewMCPServer("secure", "1", mcpserver.WithToolCapabilities(false))
	s.AddTool(mcpproto.NewTool("echo", mcpproto.WithString("text", mcpproto.Required())),
		func(ctx context.Context, req mcpproto.CallToolRequest) (*mcpproto.CallToolResult, error) {
			return mcpproto.NewToolResultText(req.GetString("text", "")), nil
		})
	streamable := mcpserver.NewStreamableHTTPServer(s)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	prm := srv.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSONResp(w, http.StatusOK, map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{as.srv.URL}})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || !as.valid(token) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="`+prm+`"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		streamable.ServeHTTP(w, r)
	})
	return srv.URL + "/mcp"
}

// browser is the user's browser: it fetches the authorization URL and
// follows the redirect back to ollm's loopback callback. tamper, when
// set, changes the URL first.
type browser struct {
	tamper func(url.Values)
	mu     sync.Mutex
	pages  []string
	opened []string
}

func (b *browser) open(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if b.tamper != nil {
		q := u.Query()
		b.tamper(q)
		u.RawQuery = q.Encode()
	}
	resp, err := http.Get(u.String())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	b.mu.Lock()
	b.opened = append(b.opened, raw)
	b.pages = append(b.pages, resp.Request.URL.Host+" "+string(page))
	b.mu.Unlock()
	return nil
}

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
	as := newAuthServer(t)
	srvURL := startProtectedServer(t, as)
	tokens := filepath.Join(t.TempDir(), "tokens")
	b := &browser{}
	m := startManager(t, []Spec{secureSpec(srvURL)}, Options{TokenDir: tokens, OpenURL: b.open})
	if st := statusOf(m, "secure"); st.State != StateReady {
		t.Fatalf("%+v", st)
	}
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"behind oauth"}`, nil); res.ForModel != "behind oauth" {
		t.Fatalf("%+v", res)
	}
	if len(b.opened) != 1 || !strings.Contains(b.opened[0], "code_challenge_method=S256") || !strings.Contains(b.pages[0], "logged in to the MCP server secure") {
		t.Errorf("browser: %q %q", b.opened, b.pages)
	}
	if !strings.HasPrefix(b.pages[0], "127.0.0.1:") {
		t.Errorf("the callback was not on 127.0.0.1: %q", b.pages[0])
	}
	rec, mode := readRecord(t, tokens)
	if mode != 0o600 || rec.URL != srvURL || rec.ClientID == "" || rec.Token.RefreshToken == "" || !strings.HasPrefix(rec.RedirectURI, "http://127.0.0.1:") {
		t.Errorf("token file mode %o, record %+v", mode, rec)
	}
	if fi, err := os.Stat(tokens); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("token directory: %v %v", fi.Mode(), err)
	}
	if reg, exch, refr, pkce := as.counts(); reg != 1 || exch != 1 || refr != 0 || pkce != 0 {
		t.Errorf("registrations %d exchanges %d refreshes %d pkce failures %d", reg, exch, refr, pkce)
	}
}

// TestOAuthHeadlessNeedsLogin: with no way to open a browser the server
// fails with an error that names it and the command to run.
func TestOAuthHeadlessNeedsLogin(t *testing.T) {
	as := newAuthServer(t)
	srvURL := startProtectedServer(t, as)
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
	as := newAuthServer(t)
	srvURL := startProtectedServer(t, as)
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := Login(context.Background(), secureSpec(srvURL), LoginOptions{TokenDir: tokens, OpenURL: (&browser{}).open}); err != nil {
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
	if _, _, refr, _ := as.counts(); refr != 1 || rec.Token.AccessToken == first || mode != 0o600 || time.Until(rec.Token.ExpiresAt) < time.Hour-time.Minute {
		t.Fatalf("refreshes %d, token %+v, mode %o", refr, rec.Token, mode)
	}

	as.revokeAccess() // the server now refuses the token: 401
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"after a 401"}`, nil); res.ForModel != "after a 401" {
		t.Fatalf("after a 401: %+v", res)
	}
	if _, _, refr, _ := as.counts(); refr != 2 {
		t.Errorf("refreshes %d after the 401, want 2", refr)
	}

	as.revokeAll()
	res := run(t, mustLookup(t, m, "echo"), `{"text":"x"}`, nil)
	if res.Error == nil || !strings.Contains(res.Error.Message, "ollm mcp login secure") {
		t.Errorf("with every token revoked: %+v", res)
	}
}

// TestOAuthTamperedStateIsRejected: a callback whose state is not the one
// ollm sent stores nothing and the code is never exchanged.
func TestOAuthTamperedStateIsRejected(t *testing.T) {
	as := newAuthServer(t)
	srvURL := startProtectedServer(t, as)
	tokens := filepath.Join(t.TempDir(), "tokens")
	b := &browser{tamper: func(q url.Values) { q.Set("state", "forged-"+q.Get("state")) }}
	err := Login(context.Background(), secureSpec(srvURL), LoginOptions{TokenDir: tokens, OpenURL: b.open})
	if err == nil || !strings.Contains(err.Error(), "state is not the one ollm sent") || !strings.Contains(err.Error(), `MCP server "secure"`) {
		t.Fatalf("err %v", err)
	}
	if _, exch, _, _ := as.counts(); exch != 0 {
		t.Errorf("%d code exchanges", exch)
	}
	if _, err := os.Stat(tokenPath(tokens, "secure")); !os.IsNotExist(err) {
		t.Errorf("token file written: %v", err)
	}
	if !strings.Contains(b.pages[0], "could not log in") {
		t.Errorf("browser page %q", b.pages[0])
	}
}

func TestOAuthLogout(t *testing.T) {
	as := newAuthServer(t)
	srvURL := startProtectedServer(t, as)
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := Login(context.Background(), secureSpec(srvURL), LoginOptions{TokenDir: tokens, OpenURL: (&browser{}).open}); err != nil {
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
		LoginOptions{TokenDir: t.TempDir(), OpenURL: (&browser{}).open})
	if err == nil || !strings.Contains(err.Error(), "does not ask for an OAuth login") {
		t.Errorf("err %v", err)
	}
	err = Login(context.Background(), Spec{Name: "local", Config: Config{Command: "x"}}, LoginOptions{OpenURL: (&browser{}).open})
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
	tests := []struct {
		md   transport.AuthServerMetadata
		want string
	}{
		{transport.AuthServerMetadata{CodeChallengeMethodsSupported: []string{"plain", "S256"}, RegistrationEndpoint: "https://as/register"}, ""},
		{transport.AuthServerMetadata{RegistrationEndpoint: "https://as/register"}, "PKCE with S256"},
		{transport.AuthServerMetadata{CodeChallengeMethodsSupported: []string{"plain"}, RegistrationEndpoint: "https://as/register"}, "PKCE with S256"},
		{transport.AuthServerMetadata{CodeChallengeMethodsSupported: []string{"S256"}}, "dynamic client registration"},
	}
	for _, tt := range tests {
		err := checkMetadata(&tt.md)
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
