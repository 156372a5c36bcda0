package mcp

import (
	"context"
	"errors"
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
}

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
	}
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(req)
	}
	tok := t.current(req.Context())
	resp, err := t.send(req, req.Body, tok)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		if err == nil {
			t.challenge.Store(nil)
		}
		return resp, err
	}
	if body, ok := replayBody(req); ok {
		if fresh, rerr := t.refresh(req.Context(), tok); rerr == nil {
			discard(resp)
			resp, err = t.send(req, body, fresh)
			if err != nil || resp.StatusCode != http.StatusUnauthorized {
				return resp, err
			}
		}
	}
	h := resp.Header.Get("WWW-Authenticate")
	t.challenge.Store(&h)
	return resp, nil
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
	r := req.Clone(req.Context())
	r.Body = body
	if tok != nil {
		r.Header.Set("Authorization", authorization(*tok))
	}
	return t.base.RoundTrip(r)
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
	if rec.Token.RefreshToken == "" {
		return nil, errors.New("the token expired and there is no refresh token")
	}
	h := newOAuthHandler(rec, t.file, &http.Client{Transport: t.base, Timeout: 30 * time.Second}, t.url)
	return h.RefreshToken(ctx, rec.Token.RefreshToken)
}

// newOAuthHandler is mcp-go's OAuth handler for the client rec records,
// saving into file. Discovery starts from the server's URL, or the
// protected resource metadata URL the server named.
func newOAuthHandler(rec tokenRecord, file *tokenFile, client *http.Client, serverURL string) *transport.OAuthHandler {
	h := transport.NewOAuthHandler(transport.OAuthConfig{
		ClientID:                     rec.ClientID,
		ClientSecret:                 rec.ClientSecret,
		TokenEndpointAuthMethod:      rec.AuthMethod,
		RedirectURI:                  rec.RedirectURI,
		TokenStore:                   file,
		PKCEEnabled:                  true,
		HTTPClient:                   client,
		ProtectedResourceMetadataURL: rec.ResourceMetadata,
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
