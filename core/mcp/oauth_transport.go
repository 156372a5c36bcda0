package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/ollm/ollm/store"
)

// authTransport puts a server's stored OAuth token on every request. An
// expired token is refreshed before it is sent; a 401 refreshes it (or
// picks up a token another process stored meanwhile) and sends the
// request once more. A 401 it cannot answer is passed on and remembered,
// so the Manager can ask for a login. A request that already carries an
// Authorization header (a static one from the server's headers) is left
// alone.
type authTransport struct {
	base   http.RoundTripper
	server string
	url    string // the server's expanded URL; the token is bound to it
	file   *tokenFile

	loadOnce sync.Once
	mu       sync.Mutex // one refresh at a time
	// challenge is the WWW-Authenticate header of the last 401 that could
	// not be answered; nil once a request gets through.
	challenge atomic.Pointer[string]

	// stepUp, when set, logs in again asking for the scopes a 401 or 403
	// insufficient_scope names (with those of the last login); it fails
	// without a login when that adds no scope to the last login's. At
	// most one per request and maxStepUps for the server's life in this
	// process, so a server that keeps asking cannot loop.
	stepUp  func(ctx context.Context, scopes []string) error
	stepUps atomic.Int32
	// login, when set, logs in as connecting does (a browser, or the
	// client's credentials).
	login func(ctx context.Context) error
	// connected is set once the server is ready (connecting has its own
	// login); lateLogins counts the logins a tokenless 401 started.
	connected  atomic.Bool
	lateLogins atomic.Int32
	// insufficient is the scope of the last 403 insufficient_scope that
	// no step-up answered; nil once a request gets through.
	insufficient atomic.Pointer[string]

	// The DPoP key of the record (parsed once per key) and the server's
	// last DPoP nonce.
	keyMu  sync.Mutex
	key    *dpopKey
	keyEnc string
	nonces dpopNonces
}

// maxStepUps bounds the step-up logins per server.
const maxStepUps = 2

func newAuthTransport(base http.RoundTripper, tokenDir, server, serverURL string) *authTransport {
	return &authTransport{base: base, server: server, url: serverURL,
		file: &tokenFile{path: tokenPath(tokenDir, server)}}
}

// wantsLogin reports whether the server refused the requests for lack of
// a valid token.
func (t *authTransport) wantsLogin() bool { return t != nil && t.challenge.Load() != nil }

func (t *authTransport) reset() {
	if t != nil {
		t.challenge.Store(nil)
		t.insufficient.Store(nil)
		t.connected.Store(false)
	}
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(req)
	}
	tok := t.current(req.Context())
	resp, err := t.send(req, req.Body, tok)
	if err == nil && (resp.StatusCode == http.StatusForbidden || tok != nil && insufficientScope(resp)) {
		return t.forbidden(req, resp)
	}
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		if err == nil {
			t.challenge.Store(nil)
			t.insufficient.Store(nil)
		}
		return resp, err
	}
	if tok != nil && challengeParam(challengeOf(resp), "error") == "use_dpop_nonce" {
		return resp, nil // a nonce asked for again after its retry: a refresh would not help
	}
	moved := false
	if body, ok := replayBody(req); ok {
		fresh, rerr := t.refresh(req.Context(), tok)
		if rerr == nil {
			discard(resp)
			resp, err = t.send(req, body, fresh)
			if err != nil || resp.StatusCode != http.StatusUnauthorized {
				return resp, err
			}
		}
		moved = errors.Is(rerr, errIssuerChanged)
	}
	if (tok == nil || moved) && t.login != nil && t.connected.Load() && t.lateLogins.Add(1) == 1 {
		// No token at all and a connected server that challenges only now
		// (a tool call), or an authorization server that changed: log in,
		// as at connection, and send it once more;
		// once for the server's life (a failed login is not retried by
		// every request). Before that, connecting logs in.
		if body, ok := replayBody(req); ok {
			if err := t.login(req.Context()); err == nil {
				if rec, err := t.file.load(t.url); err == nil {
					discard(resp)
					tok := rec.Token
					if resp, err = t.send(req, body, &tok); err != nil || resp.StatusCode != http.StatusUnauthorized {
						return resp, err
					}
				}
			}
		}
	}
	h := resp.Header.Get("WWW-Authenticate")
	t.challenge.Store(&h)
	return resp, nil
}

// forbidden handles a 403, or a 401 that says insufficient_scope (the
// token is valid but not enough; refreshing it would not help): one that
// says insufficient_scope gets a step-up login (when one is possible, the
// scopes wanted are not those already asked for, and the server's limit
// is not reached) and the request once more, once: at most one step-up
// per request. Otherwise it is passed on and remembered.
func (t *authTransport) forbidden(req *http.Request, resp *http.Response) (*http.Response, error) {
	if !insufficientScope(resp) {
		return resp, nil
	}
	need := challengeParam(challengeOf(resp), "scope")
	if t.stepUp != nil && t.stepUps.Add(1) <= maxStepUps {
		if body, ok := replayBody(req); ok {
			if err := t.stepUp(req.Context(), strings.Fields(need)); err == nil {
				if rec, err := t.file.load(t.url); err == nil {
					discard(resp)
					tok := rec.Token
					resp, err = t.send(req, body, &tok)
					if err != nil || !insufficientScope(resp) && resp.StatusCode != http.StatusForbidden {
						t.insufficient.Store(nil)
						if err == nil && resp.StatusCode != http.StatusUnauthorized {
							t.challenge.Store(nil)
						}
						return resp, err
					}
					if insufficientScope(resp) {
						need = challengeParam(challengeOf(resp), "scope")
					}
				}
			}
		}
	}
	t.insufficient.Store(&need)
	return resp, nil
}

// challengeOf is a response's WWW-Authenticate challenges, joined.
func challengeOf(resp *http.Response) string {
	return strings.Join(resp.Header.Values("WWW-Authenticate"), ", ")
}

// insufficientScope reports whether a 401 or 403 says the token lacks
// scope (RFC 6750 §3.1 error="insufficient_scope").
func insufficientScope(resp *http.Response) bool {
	return (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized) &&
		challengeParam(challengeOf(resp), "error") == "insufficient_scope"
}

// insufficientScope is the scope the server last asked for and did not
// get, "" when none.
func (t *authTransport) insufficientScope() (string, bool) {
	if t == nil {
		return "", false
	}
	p := t.insufficient.Load()
	if p == nil {
		return "", false
	}
	return *p, true
}

// current is the token to send: the stored one, refreshed first when it
// has expired; nil when there is none.
func (t *authTransport) current(ctx context.Context) *transport.Token {
	t.loadOnce.Do(func() { _, _ = t.file.load(t.url) })
	tok, err := t.file.GetToken(ctx)
	if err != nil {
		return nil
	}
	if expired(*tok, time.Now()) && tok.RefreshToken != "" {
		if fresh, err := t.refresh(ctx, tok); err == nil {
			return fresh
		}
	}
	return tok
}

func (t *authTransport) send(req *http.Request, body io.ReadCloser, tok *transport.Token) (*http.Response, error) {
	if tok != nil && dpopBound(*tok) {
		return t.sendDPoP(req, body, *tok)
	}
	r := req.Clone(req.Context())
	r.Body = body
	if tok != nil {
		r.Header.Set("Authorization", authorization(*tok))
	}
	return t.base.RoundTrip(r)
}

// sendDPoP sends a request with a DPoP-bound token: "Authorization: DPoP
// <token>" and a fresh proof for this request (its method, its URL, the
// token's hash, the server's last nonce). A 401 use_dpop_nonce with a
// DPoP-Nonce (RFC 9449 §9) gets the request once more with that nonce.
// Without the key the token is not sent at all: a bound token never goes
// out as a bearer token.
func (t *authTransport) sendDPoP(req *http.Request, body io.ReadCloser, tok transport.Token) (*http.Response, error) {
	key, err := t.dpopKey()
	if err != nil {
		if body != nil {
			_ = body.Close()
		}
		return nil, fmt.Errorf("MCP server %q: the stored token is DPoP-bound (RFC 9449) and %v; log in again", t.server, err)
	}
	for try := 0; ; try++ {
		if try > 0 {
			var ok bool
			if body, ok = replayBody(req); !ok {
				return nil, errors.New("the server asked for a DPoP nonce and the request cannot be sent again")
			}
		}
		r := req.Clone(req.Context())
		r.Body = body
		p, err := key.proof(req.Method, req.URL, tok.AccessToken, t.nonces.get(req.URL))
		if err != nil {
			return nil, fmt.Errorf("making a DPoP proof: %w", err)
		}
		r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		r.Header.Set("DPoP", p)
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return resp, err
		}
		nonce := t.nonces.note(req.URL, resp)
		if try >= maxNonceRetries || nonce == "" || resp.StatusCode != http.StatusUnauthorized ||
			challengeParam(challengeOf(resp), "error") != "use_dpop_nonce" {
			return resp, nil
		}
		discard(resp)
	}
}

// dpopKey is the DPoP key of the stored record.
func (t *authTransport) dpopKey() (*dpopKey, error) {
	t.file.mu.Lock()
	enc := t.file.rec.DPoPKey
	t.file.mu.Unlock()
	if enc == "" {
		return nil, errors.New("its DPoP key is not in the token file")
	}
	t.keyMu.Lock()
	defer t.keyMu.Unlock()
	if t.key == nil || t.keyEnc != enc {
		k, err := parseDPoPKey(enc)
		if err != nil {
			return nil, err
		}
		t.key, t.keyEnc = k, enc
	}
	return t.key, nil
}

// authorization is the header value for a token; the type is
// case-insensitive and an empty one means bearer, as MCP prescribes.
func authorization(tok transport.Token) string {
	typ := tok.TokenType
	if typ == "" || strings.EqualFold(typ, "bearer") {
		typ = "Bearer"
	}
	return typ + " " + tok.AccessToken
}

// replayBody returns a fresh copy of the request's body for a second
// attempt, and whether there can be one.
func replayBody(req *http.Request) (io.ReadCloser, bool) {
	if req.Body == nil || req.Body == http.NoBody {
		return req.Body, true
	}
	if req.GetBody == nil {
		return nil, false
	}
	b, err := req.GetBody()
	return b, err == nil
}

func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// refresh replaces used, the token the server refused or that expired.
// Under the token file's lock (other ollm processes refresh the same
// token), it first reads the file again: a token stored there since (a
// refresh by another process, a new login) is taken as it is. Otherwise
// the refresh token is spent at the authorization server and the new
// token saved.
func (t *authTransport) refresh(ctx context.Context, used *transport.Token) (*transport.Token, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := store.PrivateDir(filepath.Dir(t.file.path)); err != nil { // before store.Lock makes it 0755
		return nil, err
	}
	unlock, err := store.Lock(t.file.path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := t.file.load(t.url)
	if err != nil {
		return nil, err
	}
	if (used == nil || rec.Token.AccessToken != used.AccessToken) && !expired(rec.Token, time.Now()) {
		return &rec.Token, nil
	}
	client := &http.Client{Transport: t.base, Timeout: 30 * time.Second}
	var dp *dpopTokenTransport
	if rec.DPoPKey != "" {
		client, dp = withDPoP(client)
	}
	h := newOAuthHandler(rec, t.file, client, t.url)
	if err := sameIssuer(ctx, h, rec); err != nil {
		return nil, err
	}
	if dp != nil {
		key, err := parseDPoPKey(rec.DPoPKey)
		if err != nil {
			return nil, fmt.Errorf("%s: %w; log in again", t.file.path, err)
		}
		md, err := h.GetServerMetadata(ctx)
		if err != nil {
			return nil, err
		}
		dp.bind(key, md.TokenEndpoint)
	}
	if rec.Grant == GrantJWTBearer && rec.Token.RefreshToken == "" {
		// The ID token, read again from its file, gets a new token.
		md, err := h.GetServerMetadata(ctx)
		if err != nil {
			return nil, err
		}
		tok, err := fetchCrossApp(ctx, client, md, rec, "")
		if err != nil {
			return nil, err
		}
		if err := t.file.SaveToken(ctx, tok); err != nil {
			return nil, err
		}
		return tok, nil
	}
	if rec.Grant == GrantClientCredentials {
		// No user is needed: the client's credentials get a new token.
		md, err := h.GetServerMetadata(ctx)
		if err != nil {
			return nil, err
		}
		tok, err := fetchClientCredentials(ctx, client, md, rec)
		if err != nil {
			return nil, err
		}
		if err := t.file.SaveToken(ctx, tok); err != nil {
			return nil, err
		}
		return tok, nil
	}
	if rec.Token.RefreshToken == "" {
		return nil, errors.New("the token expired and there is no refresh token")
	}
	return h.RefreshToken(ctx, rec.Token.RefreshToken)
}

// newOAuthHandler is mcp-go's OAuth handler for the client rec records,
// saving into file. Discovery starts from the server's URL, or the
// protected resource metadata URL the server named.
func newOAuthHandler(rec tokenRecord, file *tokenFile, client *http.Client, serverURL string) *transport.OAuthHandler {
	if rec.ResourceMetadata == "" && rec.AuthServerMetadata == "" {
		client = withRootResourceMetadata(client, serverURL)
	}
	h := transport.NewOAuthHandler(transport.OAuthConfig{
		ClientID:                     rec.ClientID,
		ClientSecret:                 rec.ClientSecret,
		TokenEndpointAuthMethod:      rec.AuthMethod,
		RedirectURI:                  rec.RedirectURI,
		TokenStore:                   file,
		PKCEEnabled:                  true,
		HTTPClient:                   client,
		ProtectedResourceMetadataURL: rec.ResourceMetadata,
		Scopes:                       rec.Scopes,
		AuthServerMetadataURL:        rec.AuthServerMetadata,
	})
	h.SetBaseURL(resourceBase(serverURL))
	return h
}

// resourceBase is the server URL without query and fragment: the
// resource the token is for.
func resourceBase(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// withRootResourceMetadata is client with the second half of the RFC 9728
// well-known discovery the MCP authorization spec asks for when the 401
// names no resource_metadata: the path-aware URI first
// (/.well-known/oauth-protected-resource/<path>), then the root
// (/.well-known/oauth-protected-resource). mcp-go's handler asks only the
// first and then looks for authorization server metadata on the MCP
// server's own origin. In front of it, a path-aware request that fails is
// answered with the root's document when the root has one, so mcp-go's
// checks (the declared resource must be the server's URL or a prefix of
// it on the same origin) and the rest of its discovery apply unchanged.
// A server URL without a path has one location; client is returned as is.
func withRootResourceMetadata(client *http.Client, serverURL string) *http.Client {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" || strings.TrimSuffix(u.EscapedPath(), "/") == "" {
		return client
	}
	root := u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource"
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &rootResourceMetadata{base: base, pathAware: root + strings.TrimSuffix(u.EscapedPath(), "/"), root: root}
	return &c
}

type rootResourceMetadata struct {
	base            http.RoundTripper
	pathAware, root string
}

func (t *rootResourceMetadata) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode == http.StatusOK || req.Method != http.MethodGet || req.URL.String() != t.pathAware {
		return resp, err
	}
	rootReq, err := http.NewRequestWithContext(req.Context(), http.MethodGet, t.root, nil)
	if err != nil {
		return resp, nil
	}
	rootReq.Header = req.Header.Clone()
	rootResp, err := t.base.RoundTrip(rootReq)
	if err != nil {
		return resp, nil
	}
	if rootResp.StatusCode != http.StatusOK {
		discard(rootResp)
		return resp, nil
	}
	discard(resp)
	return rootResp, nil
}
