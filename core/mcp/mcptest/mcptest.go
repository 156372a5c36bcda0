package mcptest

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
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// AuthServer is an OAuth 2.1 authorization server on loopback: RFC 8414
// metadata, RFC 7591 registration, an authorize endpoint that approves at
// once and redirects to the client's loopback callback, and a token
// endpoint that checks the PKCE verifier and rotates refresh tokens.
type AuthServer struct {
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

func NewAuthServer(t testing.TB) *AuthServer {
	a := &AuthServer{t: t, clients: map[string][]string{}, codes: map[string]grant{},
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

func (a *AuthServer) metadata(w http.ResponseWriter, r *http.Request) {
	u := a.srv.URL
	writeJSONResp(w, http.StatusOK, map[string]any{
		"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
		"registration_endpoint": u + "/register", "response_types_supported": []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
	})
}

func (a *AuthServer) register(w http.ResponseWriter, r *http.Request) {
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
func (a *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
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

func (a *AuthServer) token(w http.ResponseWriter, r *http.Request) {
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

func (a *AuthServer) Valid(token string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.access[token]
}

// RevokeAccess invalidates every access token (refresh tokens stay).
func (a *AuthServer) RevokeAccess() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access = map[string]bool{}
}

func (a *AuthServer) RevokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access, a.refresh = map[string]bool{}, map[string]bool{}
}

func (a *AuthServer) Counts() (registrations, exchanges, refreshes, pkceFailures int) {
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

// StartProtectedServer runs an MCP server (mcp-go's streamable HTTP server
// with an echo tool) that requires a bearer token the authorization
// server issued: without one it answers 401 with a WWW-Authenticate
// challenge naming its protected resource metadata (RFC 9728).
func StartProtectedServer(t testing.TB, as *AuthServer) string {
	return startProtected(t, as, false)
}

// StartProtectedSSEServer is StartProtectedServer over the older SSE
// transport: its URL ends in /sse and the message endpoint requires the
// token too.
func StartProtectedSSEServer(t testing.TB, as *AuthServer) string {
	return startProtected(t, as, true)
}

func startProtected(t testing.TB, as *AuthServer, sse bool) string {
	s := server.NewMCPServer("secure", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	path, handlers := "/mcp", map[string]http.Handler{"/mcp": server.NewStreamableHTTPServer(s)}
	if sse {
		ss := server.NewSSEServer(s, server.WithBaseURL(srv.URL))
		path, handlers = "/sse", map[string]http.Handler{"/sse": ss.SSEHandler(), "/message": ss.MessageHandler()}
	}
	prm := srv.URL + "/.well-known/oauth-protected-resource" + path
	mux.HandleFunc("GET /.well-known/oauth-protected-resource"+path, func(w http.ResponseWriter, r *http.Request) {
		writeJSONResp(w, http.StatusOK, map[string]any{"resource": srv.URL + path, "authorization_servers": []string{as.srv.URL}})
	})
	for p, h := range handlers {
		mux.Handle(p, as.require(prm, h))
	}
	return srv.URL + path
}

// require lets through requests with a valid bearer token; others get 401
// and a challenge naming the protected resource metadata at prm.
func (a *AuthServer) require(prm string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || !a.Valid(token) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="`+prm+`"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Browser is the user's browser: it fetches the authorization URL and
// follows the redirect back to ollm's loopback callback. Tamper, when
// set, changes the URL first.
type Browser struct {
	Tamper func(url.Values) // changes the authorization URL's query first, when set
	mu     sync.Mutex
	pages  []string
	opened []string
}

func (b *Browser) Open(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if b.Tamper != nil {
		q := u.Query()
		b.Tamper(q)
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

// URL is the authorization server's issuer URL.
func (a *AuthServer) URL() string { return a.srv.URL }

// Opened lists the authorization URLs the browser was given.
func (b *Browser) Opened() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.opened...)
}

// Pages lists what the browser ended on: the host of the last URL and the
// page's text.
func (b *Browser) Pages() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.pages...)
}
