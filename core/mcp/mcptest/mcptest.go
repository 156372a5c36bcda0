package mcptest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// AuthServer is an OAuth 2.1 authorization server on loopback: RFC 8414
// metadata, RFC 7591 registration, an authorize endpoint that approves at
// once and redirects to the client's loopback callback, and a token
// endpoint that checks the PKCE verifier and rotates refresh tokens.
type AuthServer struct {
	t    testing.TB
	srv  *httptest.Server
	opts AuthOptions
	mux  *http.ServeMux

	mu        sync.Mutex
	clients   map[string][]string // client_id → redirect URIs
	codes     map[string]grant
	access    map[string]string // access token → the scopes granted
	refresh   map[string]string // refresh token → the scopes granted
	expiresIn int

	mountPrefix map[*http.ServeMux]string

	registrations, exchanges, refreshes, pkceFailures, credentialGrants int
	scopesAsked                                                         []string
	revocations                                                         []string // token_type_hint of each revocation request
	appTypes                                                            []string // application_type of each registration
	clientsSeen                                                         []string // client_id of each authorization and token request

	// DPoP: access and refresh tokens → the thumbprint of the key they
	// are bound to; the proofs' jtis seen; refusals; nonce answers.
	bound, boundRefresh map[string]string
	jtis                map[string]bool
	dpopRefusals        []string
	asNonces, rsNonces  int
	jagResources        []string
}

type grant struct{ client, redirect, challenge, scope string }

// AuthOptions shape an AuthServer.
type AuthOptions struct {
	// Path is the issuer's path ("/tenant1"): the metadata are at
	// /.well-known/oauth-authorization-server/tenant1 (RFC 8414 §3), the
	// endpoints under the path.
	Path string
	// NoRegistration offers no dynamic client registration: only the
	// Clients registered beforehand can log in.
	NoRegistration bool
	// Clients are registered beforehand: client_id → secret ("" for a
	// public client).
	Clients map[string]string
	// ClientKeys are registered beforehand for private_key_jwt:
	// client_id → public key (*ecdsa.PublicKey or *rsa.PublicKey).
	ClientKeys map[string]crypto.PublicKey
	// Withhold is a scope the server never grants.
	Withhold string
	// MetadataDocuments accepts a URL as client_id: the client ID
	// metadata document there is fetched and must name that URL and a
	// loopback redirect URI (any port, RFC 8252).
	MetadataDocuments bool
	// Revocation advertises an RFC 7009 revocation endpoint
	// (prefix/revoke): it takes an access or a refresh token from the
	// client that holds it and invalidates it.
	Revocation bool
	// IssSupported advertises authorization_response_iss_parameter_supported
	// (RFC 9207) in the metadata.
	IssSupported bool
	// Iss, when set, gives the iss parameter of the authorization
	// response from the issuer identifier ("" sends none).
	Iss func(issuer string) string
	// DPoP advertises dpop_signing_alg_values_supported (ES256) and
	// requires a valid DPoP proof on every token request (RFC 9449 §5):
	// the tokens are bound to its key (token_type DPoP), a refresh needs
	// the same key.
	DPoP bool
	// DPoPNonce, when set, is the nonce every token request's proof must
	// carry: without it the answer is 400 use_dpop_nonce with a
	// DPoP-Nonce header (RFC 9449 §8).
	DPoPNonce string
	// DPoPQuiet does DPoP as DPoP does for a token request that carries
	// a proof, without advertising it (a proof-less request gets a bearer
	// token): a client learns of DPoP from the resource's challenge.
	DPoPQuiet bool
	// TrustIdP accepts ID-JAGs this IdP signed with the jwt-bearer grant
	// (RFC 7523; cross-app access), from a client registered in Clients
	// (a secret with client_secret_basic, or public with client_id).
	TrustIdP *IdP
	// TrustWorkload accepts, with the jwt-bearer grant, a workload's JWT
	// this IdP signed for this issuer (workload identity federation; no
	// ID-JAG), from a public client registered in Clients.
	TrustWorkload *IdP
	// DPoPJWT issues bound access tokens as JWTs with cnf.jkt and says
	// token_type Bearer all the same.
	DPoPJWT bool
}

// NewAuthServer is an authorization server at the root of its origin.
func NewAuthServer(t testing.TB) *AuthServer { return NewAuthServerWith(t, AuthOptions{}) }

// NewAuthServerWith is an authorization server shaped by o.
func NewAuthServerWith(t testing.TB, o AuthOptions) *AuthServer {
	a := &AuthServer{t: t, opts: o, clients: map[string][]string{}, codes: map[string]grant{},
		access: map[string]string{}, refresh: map[string]string{}, expiresIn: 3600,
		bound: map[string]string{}, boundRefresh: map[string]string{}, jtis: map[string]bool{}}
	mux := http.NewServeMux()
	a.mux = mux
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	a.Mount(mux, "/.well-known/oauth-authorization-server"+o.Path, o.Path)
	return a
}

// Mount serves the metadata at metadataPath (none when "") and the
// endpoints under prefix on mux, which may be another server's (a
// 2025-03-26 MCP server that is its own authorization server).
func (a *AuthServer) Mount(mux *http.ServeMux, metadataPath, prefix string) {
	a.mu.Lock()
	if a.mountPrefix == nil {
		a.mountPrefix = map[*http.ServeMux]string{}
	}
	a.mountPrefix[mux] = prefix
	a.mu.Unlock()
	if metadataPath != "" {
		mux.HandleFunc("GET "+metadataPath, a.metadata)
	}
	if !a.opts.NoRegistration {
		mux.HandleFunc("POST "+prefix+"/register", a.register)
	}
	mux.HandleFunc("GET "+prefix+"/authorize", a.authorize)
	mux.HandleFunc("POST "+prefix+"/token", a.token)
	if a.opts.Revocation {
		mux.HandleFunc("POST "+prefix+"/revoke", a.revoke)
	}
}

// Issuer is the issuer identifier: the URL with the issuer's path.
func (a *AuthServer) Issuer() string { return a.srv.URL + a.opts.Path }

func (a *AuthServer) metadata(w http.ResponseWriter, r *http.Request) {
	issuer := a.issuerFor(r)
	u := a.endpointBase(r)
	md := map[string]any{
		"issuer": issuer, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic", "private_key_jwt"},
	}
	if !a.opts.NoRegistration {
		md["registration_endpoint"] = u + "/register"
	}
	if a.opts.MetadataDocuments {
		md["client_id_metadata_document_supported"] = true
	}
	if a.opts.Revocation {
		md["revocation_endpoint"] = u + "/revoke"
	}
	if a.opts.IssSupported {
		md["authorization_response_iss_parameter_supported"] = true
	}
	if a.opts.DPoP {
		md["dpop_signing_alg_values_supported"] = []string{"ES256"}
	}
	writeJSONResp(w, http.StatusOK, md)
}

// endpointBase is where the endpoints are for a request's origin: the
// issuer, or on another server's origin the issuer and the prefix they
// were mounted under.
func (a *AuthServer) endpointBase(r *http.Request) string {
	if "http://"+r.Host == a.srv.URL {
		return a.Issuer()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for mux, prefix := range a.mountPrefix {
		if mux != a.mux {
			return "http://" + r.Host + prefix
		}
	}
	return "http://" + r.Host
}

// issuerFor is the issuer as seen from the request's origin (the same
// authorization server mounted on an MCP server's origin has that origin).
func (a *AuthServer) issuerFor(r *http.Request) string {
	if "http://"+r.Host == a.srv.URL {
		return a.Issuer()
	}
	return "http://" + r.Host
}

func (a *AuthServer) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs    []string `json:"redirect_uris"`
		ApplicationType string   `json:"application_type"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.RedirectURIs) == 0 || !strings.HasPrefix(req.RedirectURIs[0], "http://127.0.0.1:") {
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_redirect_uri"})
		return
	}
	id := randomString()
	a.mu.Lock()
	a.clients[id] = req.RedirectURIs
	a.registrations++
	a.appTypes = append(a.appTypes, req.ApplicationType)
	a.mu.Unlock()
	writeJSONResp(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
}

// authorize approves at once: the test's "browser" is the user.
func (a *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	defer a.mu.Unlock()
	uris := a.clients[q.Get("client_id")]
	if _, ok := a.opts.Clients[q.Get("client_id")]; ok && len(uris) == 0 {
		uris = []string{q.Get("redirect_uri")} // registered beforehand: any loopback redirect
	}
	if a.opts.MetadataDocuments && strings.HasPrefix(q.Get("client_id"), "http") && a.documentAllows(q.Get("client_id"), q.Get("redirect_uri")) {
		uris = []string{q.Get("redirect_uri")}
	}
	a.scopesAsked = append(a.scopesAsked, q.Get("scope"))
	a.clientsSeen = append(a.clientsSeen, q.Get("client_id"))
	if q.Get("response_type") != "code" || len(uris) == 0 || uris[0] != q.Get("redirect_uri") ||
		q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256" {
		http.Error(w, "bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
		return
	}
	code := randomString()
	a.codes[code] = grant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), scope: a.granted(q.Get("scope"))}
	resp := url.Values{"code": {code}, "state": {q.Get("state")}}
	if a.opts.Iss != nil {
		if iss := a.opts.Iss(a.issuerFor(r)); iss != "" {
			resp.Set("iss", iss)
		}
	}
	back := q.Get("redirect_uri") + "?" + resp.Encode()
	http.Redirect(w, r, back, http.StatusFound)
}

func (a *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	a.mu.Lock()
	defer a.mu.Unlock()
	client := r.Form.Get("client_id")
	if id, _, ok := r.BasicAuth(); ok {
		client, _ = url.QueryUnescape(id)
	}
	a.clientsSeen = append(a.clientsSeen, client)
	jkt, ok := a.tokenProof(w, r)
	if !ok {
		return
	}
	var scope string
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		g, ok := a.codes[r.Form.Get("code")]
		delete(a.codes, r.Form.Get("code"))
		client := r.Form.Get("client_id")
		if id, secret, basic := r.BasicAuth(); basic {
			client = id
			if want, known := a.opts.Clients[id]; !known || want != secret {
				writeJSONResp(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
				return
			}
		}
		if !ok || g.client != client || g.redirect != r.Form.Get("redirect_uri") {
			writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		scope = g.scope
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			a.pkceFailures++
			writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
			return
		}
		a.exchanges++
	case "refresh_token":
		sc, ok := a.refresh[r.Form.Get("refresh_token")]
		if !ok || a.boundRefresh[r.Form.Get("refresh_token")] != jkt {
			writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(a.refresh, r.Form.Get("refresh_token")) // rotation
		a.refreshes++
		scope = sc
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		sc, ok := a.jwtBearer(w, r)
		if !ok {
			return
		}
		at, typ := randomString(), "Bearer" // no refresh token, as usual for this grant
		if jkt != "" {
			at, typ = a.bindToken(at, jkt)
		}
		a.access[at] = sc
		writeJSONResp(w, http.StatusOK, map[string]any{"access_token": at, "token_type": typ, "expires_in": a.expiresIn, "scope": sc})
		return
	case "client_credentials":
		if err := a.authenticateClient(r); err != nil {
			writeJSONResp(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": err.Error()})
			return
		}
		a.credentialGrants++
		at, typ := randomString(), "Bearer"
		if jkt != "" {
			at, typ = a.bindToken(at, jkt)
		}
		a.access[at] = a.granted(r.Form.Get("scope"))
		writeJSONResp(w, http.StatusOK, map[string]any{"access_token": at, "token_type": typ, "expires_in": a.expiresIn, "scope": a.access[at]})
		return
	default:
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	at, rt, typ := randomString(), randomString(), "bearer"
	if jkt != "" {
		at, typ = a.bindToken(at, jkt)
		a.boundRefresh[rt] = jkt
	}
	a.access[at], a.refresh[rt] = scope, scope
	writeJSONResp(w, http.StatusOK, map[string]any{"access_token": at, "token_type": typ, "refresh_token": rt, "expires_in": a.expiresIn})
}

// revoke is the RFC 7009 endpoint: the client identifies itself (its
// client_id for a public client, HTTP basic for a confidential one) and
// the token is invalidated. An unknown token is a success too (§2.2); a
// request without a client or a token is invalid_request.
func (a *AuthServer) revoke(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	client := r.Form.Get("client_id")
	if id, secret, basic := r.BasicAuth(); basic {
		client = id
		if want, known := a.opts.Clients[id]; !known || want != secret {
			writeJSONResp(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return
		}
	}
	tok := r.Form.Get("token")
	if client == "" || tok == "" {
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.access, tok)
	delete(a.refresh, tok)
	a.revocations = append(a.revocations, r.Form.Get("token_type_hint"))
	w.WriteHeader(http.StatusOK)
}

// Revocations lists the token_type_hint of each revocation request.
func (a *AuthServer) Revocations() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.revocations...)
}

// ApplicationTypes lists the application_type of each registration.
func (a *AuthServer) ApplicationTypes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.appTypes...)
}

// ClientsSeen lists the client_id of each authorization and token
// request ("" where a request named none).
func (a *AuthServer) ClientsSeen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.clientsSeen...)
}

// ValidRefresh reports whether a refresh token would be accepted.
func (a *AuthServer) ValidRefresh(token string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.refresh[token]
	return ok
}

// granted is the scope asked for without the withheld one.
func (a *AuthServer) granted(scope string) string {
	var out []string
	for _, s := range strings.Fields(scope) {
		if s != a.opts.Withhold {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

// authenticateClient checks a client_credentials request's client: HTTP
// basic with the registered secret, or a private_key_jwt assertion signed
// with the registered key (RFC 7523), whose audience is the issuer
// identifier exactly (RFC 7523bis; the token endpoint is refused).
func (a *AuthServer) authenticateClient(r *http.Request) error {
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		if want, known := a.opts.Clients[id]; !known || want == "" || want != secret {
			return errors.New("unknown client or wrong secret")
		}
		return nil
	}
	if r.Form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
		return errors.New("no client authentication")
	}
	id := r.Form.Get("client_id")
	key, ok := a.opts.ClientKeys[id]
	if !ok {
		return errors.New("no key registered for " + id)
	}
	parts := strings.Split(r.Form.Get("client_assertion"), ".")
	if len(parts) != 3 {
		return errors.New("the assertion is not a JWT")
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		if len(sig) != 64 || !ecdsa.Verify(k, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
			return errors.New("bad ES256 signature")
		}
	case *rsa.PublicKey:
		if rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], sig) != nil {
			return errors.New("bad RS256 signature")
		}
	default:
		return errors.New("unsupported key")
	}
	var c struct {
		Iss, Sub, Aud string
		Exp           int64
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(payload, &c) != nil || c.Iss != id || c.Sub != id || c.Aud != a.issuerFor(r) || c.Exp < time.Now().Unix() {
		return errors.New("bad assertion claims: " + string(payload))
	}
	return nil
}

// documentAllows fetches the client ID metadata document at id and
// reports whether it names id and allows redirect (a loopback URI matches
// whatever its port).
func (a *AuthServer) documentAllows(id, redirect string) bool {
	resp, err := http.Get(id)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var doc struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&doc) != nil || doc.ClientID != id {
		return false
	}
	r, err := url.Parse(redirect)
	if err != nil {
		return false
	}
	for _, u := range doc.RedirectURIs {
		d, err := url.Parse(u)
		if err == nil && d.Scheme == r.Scheme && d.Hostname() == r.Hostname() && d.Path == r.Path {
			return true
		}
	}
	return false
}

func (a *AuthServer) Valid(token string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.access[token]
	return ok
}

// Scope is what the access token was granted.
func (a *AuthServer) Scope(token string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.access[token]
}

// ScopesAsked lists the scope parameter of every authorization request.
func (a *AuthServer) ScopesAsked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.scopesAsked...)
}

// CredentialGrants counts the tokens issued to client_credentials.
func (a *AuthServer) CredentialGrants() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.credentialGrants
}

// RevokeAccess invalidates every access token (refresh tokens stay).
func (a *AuthServer) RevokeAccess() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access = map[string]string{}
}

func (a *AuthServer) RevokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access, a.refresh = map[string]string{}, map[string]string{}
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

// ServerOptions shape a protected MCP server.
type ServerOptions struct {
	SSE bool
	// Scope, when set, is the scope the 401 challenge names.
	Scope string
	// CallScope, when set, is a scope tools/call needs besides: a token
	// without it gets 403 insufficient_scope.
	CallScope string
	// CallScopeStatus is the HTTP status of that insufficient_scope
	// answer: 403 (the default, as RFC 6750 has it) or 401.
	CallScopeStatus int
	// CallScopeAlone: the insufficient_scope challenge names CallScope
	// alone, not Scope with it.
	CallScopeAlone bool
	// AfterInitialize lets initialize and notifications through without
	// a token: the first request that needs one is tools/list (a server
	// that only challenges after initialize).
	AfterInitialize bool
	// OnlyCalls challenges tools/call alone: everything else goes
	// through without a token (the protected resource metadata are
	// served all the same).
	OnlyCalls bool
	// NoResourceMetadata serves no protected resource metadata (a
	// 2025-03-26 server): the challenge names none either.
	NoResourceMetadata bool
	// UnnamedResourceMetadata: the 401 challenge names no
	// resource_metadata, so a client must find the protected resource
	// metadata at the RFC 9728 well-known URI.
	UnnamedResourceMetadata bool
	// ResourceMetadataAtRoot serves the protected resource metadata at
	// the origin's root (/.well-known/oauth-protected-resource, declaring
	// the origin as the resource, as RFC 9728 §3.3 has it for that
	// location) instead of the path-aware location
	// (/.well-known/oauth-protected-resource/mcp).
	ResourceMetadataAtRoot bool
	// OnRequest, when set, is called with every request the server
	// receives, before it is answered.
	OnRequest func(*http.Request)
	// Current, when set, is the authorization server the protected
	// resource metadata name and whose tokens are valid, asked at each
	// request (a server whose authorization server changes).
	Current func() *AuthServer
	// Mount, when set, is called with the server's mux and URL, to put
	// more on its origin (an authorization server, for 2025-03-26).
	Mount func(mux *http.ServeMux, url string)
	// ResourceMetadataAS, when set, is the authorization server the
	// protected resource metadata name, asked at each request: a server
	// migrating to it, which accepts its tokens and still those of the
	// authorization server it was started with.
	ResourceMetadataAS func() *AuthServer
	// DPoP challenges with the DPoP scheme (RFC 9449 §7.1) instead of
	// Bearer. Whatever it says, a token bound to a DPoP key must come
	// with the DPoP scheme and a valid proof by that key (htm, htu, ath,
	// a fresh jti); a bearer use of it is refused.
	DPoP bool
	// DPoPNonce, when set, is the nonce every proof must carry: without
	// it the answer is 401 use_dpop_nonce with a DPoP-Nonce (§9).
	DPoPNonce string
	// ScopesSupported, when set, is the protected resource metadata's
	// scopes_supported.
	ScopesSupported []string
	// RequireProtocolHeader answers a POST without an MCP-Protocol-Version
	// header, initialize too, with 400 and JSON-RPC error -32020 (a
	// 2026-07-28 server), after the token check (as AfterInitialize lets
	// initialize through to it).
	RequireProtocolHeader bool
}

// StartServer runs a protected MCP server shaped by o.
func StartServer(t testing.TB, as *AuthServer, o ServerOptions) string {
	return startProtectedWith(t, as, o)
}

func startProtected(t testing.TB, as *AuthServer, sse bool) string {
	return startProtectedWith(t, as, ServerOptions{SSE: sse})
}

func startProtectedWith(t testing.TB, as *AuthServer, o ServerOptions) string {
	sse := o.SSE
	s := server.NewMCPServer("secure", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	mux := http.NewServeMux()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.OnRequest != nil {
			o.OnRequest(r)
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	path, handlers := "/mcp", map[string]http.Handler{"/mcp": server.NewStreamableHTTPServer(s)}
	if sse {
		ss := server.NewSSEServer(s, server.WithBaseURL(srv.URL))
		path, handlers = "/sse", map[string]http.Handler{"/sse": ss.SSEHandler(), "/message": ss.MessageHandler()}
	}
	prm := ""
	if !o.NoResourceMetadata {
		at, resource := "/.well-known/oauth-protected-resource"+path, srv.URL+path
		if o.ResourceMetadataAtRoot {
			at, resource = "/.well-known/oauth-protected-resource", srv.URL
		}
		prm = srv.URL + at
		mux.HandleFunc("GET "+at, func(w http.ResponseWriter, r *http.Request) {
			cur := as
			if o.Current != nil {
				cur = o.Current()
			}
			if o.ResourceMetadataAS != nil {
				cur = o.ResourceMetadataAS()
			}
			doc := map[string]any{"resource": resource, "authorization_servers": []string{cur.Issuer()}}
			if o.ScopesSupported != nil {
				doc["scopes_supported"] = o.ScopesSupported
			}
			writeJSONResp(w, http.StatusOK, doc)
		})
		if o.UnnamedResourceMetadata {
			prm = ""
		}
	}
	if o.Mount != nil {
		o.Mount(mux, srv.URL)
	}
	for p, h := range handlers {
		if o.RequireProtocolHeader {
			h = requireProtocolHeader(h)
		}
		mux.Handle(p, as.requireWith(prm, o, h))
	}
	return srv.URL + path
}

// require lets through requests with a valid bearer token; others get 401
// and a challenge naming the protected resource metadata at prm.
func (a *AuthServer) require(prm string, next http.Handler) http.Handler {
	return a.requireWith(prm, ServerOptions{}, next)
}

func (a *AuthServer) requireWith(prm string, o ServerOptions, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := a
		if o.Current != nil {
			a = o.Current()
		}
		var extra string
		if prm != "" {
			extra = `, resource_metadata="` + prm + `"`
		}
		var body []byte
		if r.Method == http.MethodPost {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if o.AfterInitialize && (bytes.Contains(body, []byte(`"method":"initialize"`)) || bytes.Contains(body, []byte(`"method":"notifications/`))) ||
			o.OnlyCalls && !bytes.Contains(body, []byte(`"method":"tools/call"`)) {
			next.ServeHTTP(w, r)
			return
		}
		scheme := "Bearer"
		if o.DPoP {
			scheme = "DPoP"
		}
		presented, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if o.ResourceMetadataAS != nil && !a.Valid(token) {
			if b := o.ResourceMetadataAS(); b.Valid(token) {
				a = b
			}
		}
		ok := token != "" && (strings.EqualFold(presented, "Bearer") || strings.EqualFold(presented, "DPoP"))
		if ok && a.Valid(token) && !a.resourceProof(w, r, presented, token, scheme, o) {
			return
		}
		if !ok || !a.Valid(token) {
			challenge := scheme + ` error="invalid_token"` + extra
			if o.Scope != "" {
				challenge += `, scope="` + o.Scope + `"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if o.CallScope != "" && bytes.Contains(body, []byte(`"tools/call"`)) && !slices.Contains(strings.Fields(a.Scope(token)), o.CallScope) {
			status := o.CallScopeStatus
			if status == 0 {
				status = http.StatusForbidden
			}
			named := strings.TrimSpace(o.Scope + " " + o.CallScope)
			if o.CallScopeAlone {
				named = o.CallScope
			}
			w.Header().Set("WWW-Authenticate", scheme+` error="insufficient_scope", scope="`+named+`"`+extra)
			http.Error(w, "insufficient scope", status)
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

// jwtBearer takes an ID-JAG (the jwt-bearer grant of cross-app access):
// the client authenticated, the assertion signed by the trusted IdP for
// this issuer and this client. It answers a refusal itself. Called with
// a.mu held.
func (a *AuthServer) jwtBearer(w http.ResponseWriter, r *http.Request) (string, bool) {
	if a.opts.TrustWorkload != nil {
		if secret, known := a.opts.Clients[r.Form.Get("client_id")]; !known || secret != "" {
			writeJSONResp(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return "", false
		}
		if err := a.opts.TrustWorkload.checkWorkload(a, r, r.Form.Get("assertion")); err != nil {
			writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": err.Error()})
			return "", false
		}
		a.exchanges++
		return a.granted(r.Form.Get("scope")), true
	}
	if a.opts.TrustIdP == nil {
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return "", false
	}
	client := r.Form.Get("client_id")
	if _, _, basic := r.BasicAuth(); basic || r.Form.Get("client_assertion") != "" {
		if err := a.authenticateClient(r); err != nil {
			writeJSONResp(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": err.Error()})
			return "", false
		}
		if id, _, ok := r.BasicAuth(); ok {
			client, _ = url.QueryUnescape(id)
		}
	} else if secret, known := a.opts.Clients[client]; !known || secret != "" {
		writeJSONResp(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return "", false
	}
	resource, scope, err := a.opts.TrustIdP.checkJAG(a, r, r.Form.Get("assertion"), client)
	if err != nil {
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": err.Error()})
		return "", false
	}
	a.jagResources = append(a.jagResources, resource)
	a.exchanges++
	if s := r.Form.Get("scope"); s != "" {
		scope = s
	}
	return a.granted(scope), true
}

// JAGResources lists the resource claim of each ID-JAG accepted.
func (a *AuthServer) JAGResources() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.jagResources...)
}

// requireProtocolHeader refuses a POST without MCP-Protocol-Version as
// a 2026-07-28 server does: 400 with JSON-RPC error -32020.
func requireProtocolHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("MCP-Protocol-Version") == "" {
			writeJSONResp(w, http.StatusBadRequest, map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": -32020, "message": "Missing MCP-Protocol-Version header"}})
			return
		}
		next.ServeHTTP(w, r)
	})
}
