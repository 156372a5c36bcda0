package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// DefaultLoginTimeout is how long a login waits for the browser.
const DefaultLoginTimeout = 5 * time.Minute

// LoginOptions configure Login.
type LoginOptions struct {
	TokenDir   string       // store.Home.Tokens()
	HTTPClient *http.Client // default http.DefaultClient
	Environ    []string     // for ${VAR} in the URL and headers; default os.Environ()
	Roots      []string     // ${workspacePath}
	// OpenURL shows the user the authorization page; required.
	OpenURL func(url string) error
	Timeout time.Duration // waiting for the browser; default DefaultLoginTimeout
	// Warn, when set, is told what the login went on despite (a client
	// metadata document ollm could not fetch).
	Warn func(msg string)
}

// Login signs ollm in to an HTTP MCP server that requires OAuth, as the
// MCP authorization spec describes: it finds the authorization server
// (the server's 401 challenge or protected resource metadata, RFC 9728,
// then the authorization server's metadata, RFC 8414), registers ollm as
// a client (RFC 7591), has the user authorize in the browser with PKCE
// (S256) and a state, receives the code on a loopback listener on
// 127.0.0.1, exchanges it and stores the tokens, 0600, under TokenDir.
func Login(ctx context.Context, spec Spec, o LoginOptions) error {
	if spec.Transport() == TransportStdio {
		return fmt.Errorf("MCP server %q runs over stdio; OAuth login applies to HTTP servers only", spec.Name)
	}
	if o.OpenURL == nil && !spec.headless() {
		return fmt.Errorf("MCP server %q needs a login and there is no terminal to open the browser from; run in a terminal: %s", spec.Name, spec.loginCommand())
	}
	opts := Options{Environ: o.Environ, Roots: o.Roots, HTTPClient: o.HTTPClient}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	cfg := ExpandServer(spec.Name, spec.Config, opts.Environ, spec.SettingsEnv, spec.vars(&opts))
	if spec.OAuth != nil && spec.OAuth.ClientSecret == "" && spec.OAuth.ClientSecretEnv != "" {
		oc := *spec.OAuth
		oc.ClientSecret = lookupEnv(oc.ClientSecretEnv, opts.Environ, spec.SettingsEnv)
		if oc.ClientSecret == "" {
			return fmt.Errorf("MCP server %q: oauth.clientSecretEnv names %s, which is not set", spec.Name, oc.ClientSecretEnv)
		}
		spec.OAuth = &oc
	}
	client, watch := watchMetadata(opts.httpClient())
	client, dp := withDPoP(client)
	fl := &loginFlow{name: spec.Name, transport: spec.Transport(), cfg: cfg, client: client, watch: watch, dpop: dp, opts: o,
		file: &tokenFile{path: tokenPath(o.TokenDir, spec.tokenName())}, oauth: spec.OAuth, login: spec.loginCommand()}
	if spec.grant() == GrantJWTBearer && spec.OAuth.CrossApp != nil {
		if err := fl.crossApp(ctx); err != nil {
			how := "cross-app access"
			if spec.OAuth.CrossApp.Workload {
				how = "workload identity"
			}
			return fmt.Errorf("MCP server %q (%s): %s: %w", spec.Name, cfg.URL, how, err)
		}
		return nil
	}
	if spec.grant() == GrantClientCredentials {
		if err := fl.clientCredentials(ctx); err != nil {
			return fmt.Errorf("MCP server %q (%s): client credentials: %w", spec.Name, cfg.URL, err)
		}
		return nil
	}
	if err := fl.run(ctx); err != nil {
		return fmt.Errorf("MCP server %q (%s): login: %w", spec.Name, cfg.URL, err)
	}
	return nil
}

// loginFlow is one run of Login.
type loginFlow struct {
	name      string
	transport string
	cfg       Expanded
	client    *http.Client
	watch     *metadataWatch // what the metadata fetched said
	dpop      *dpopTokenTransport
	opts      LoginOptions
	file      *tokenFile
	oauth     *OAuthClient // pre-registered client and scopes, nil for none
	login     string       // the command that logs in, for messages
	// metadataURL is the authorization server metadata found at the
	// server's root (2025-03-26), "" when discovery found it otherwise.
	metadataURL string
	// foreignClient: the client given belongs to another authorization
	// server than the one found; it is not used.
	foreignClient bool
}

func (fl *loginFlow) run(ctx context.Context) error {
	challenge, err := fl.probe(ctx)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening on 127.0.0.1 for the browser's callback: %w", err)
	}
	defer ln.Close()
	rec := tokenRecord{Server: fl.name, URL: fl.cfg.URL,
		ResourceMetadata: sameOriginMetadata(challenge, fl.cfg.URL),
		RedirectURI:      fmt.Sprintf("http://%s/callback", ln.Addr()),
		Scopes:           fl.scopes(ctx, challenge), Grant: GrantAuthorizationCode}
	if id := fl.clientID(); id != "" {
		rec.ClientID, rec.ClientSecret, rec.PreRegistered = id, fl.oauth.ClientSecret, true
	}
	h, err := fl.discover(ctx, rec)
	if err != nil {
		return err
	}
	rec.AuthServerMetadata = fl.metadataURL
	if md, err := h.GetServerMetadata(ctx); err == nil {
		rec.Issuer = md.Issuer
		if err := fl.useDPoP(md, challenge, &rec); err != nil {
			return err
		}
	}
	if h, err = fl.register(ctx, h, &rec); err != nil {
		return err
	}
	fl.file.setClient(rec)
	return fl.authorize(ctx, h, ln)
}

// probeVersion is the protocol version the login's probe speaks.
const probeVersion = "2025-06-18"

// probe asks the server without a token; it must answer 401. The
// challenge it returns may name its protected resource metadata. A
// streamable HTTP server that lets initialize through is asked for its
// tools too (many challenge only after initialize); one that lets that
// through as well but publishes protected resource metadata (RFC 9728)
// is logged in to all the same, with no challenge.
func (fl *loginFlow) probe(ctx context.Context) (string, error) {
	method, body := http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+probeVersion+`","capabilities":{},"clientInfo":{"name":"ollm","version":"login"}}}`
	if fl.transport == TransportSSE {
		method, body = http.MethodGet, ""
	}
	resp, err := fl.probeRequest(ctx, method, body, "")
	if err != nil {
		return "", err
	}
	_ = resp.Body.Close() // an SSE stream that answers 200 is never read
	if resp.StatusCode == http.StatusUnauthorized {
		return challengeOf(resp), nil
	}
	first := resp.StatusCode
	if fl.transport != TransportSSE && resp.StatusCode/100 == 2 {
		session := resp.Header.Get("Mcp-Session-Id")
		if r, err := fl.probeRequest(ctx, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session); err == nil {
			_ = r.Body.Close()
		}
		r, err := fl.probeRequest(ctx, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, session)
		if err == nil {
			_ = r.Body.Close()
		}
		if session != "" {
			if d, err := fl.probeRequest(ctx, http.MethodDelete, "", session); err == nil {
				_ = d.Body.Close()
			}
		}
		if err == nil && (r.StatusCode == http.StatusUnauthorized || insufficientScope(r)) {
			return challengeOf(r), nil
		}
		if fl.hasResourceMetadata(ctx) {
			return "", nil
		}
	} else if fl.transport != TransportSSE && resp.StatusCode/100 == 4 {
		// A 2026-07-28 server may refuse an initialize without its
		// MCP-Protocol-Version header (400) and challenge the requests it
		// does speak: ask it the way a 2026-07-28 client starts.
		if challenge, ok := fl.probeDiscover(ctx); ok {
			return challenge, nil
		}
	}
	return "", fmt.Errorf("the server answered HTTP %d without a token, not 401, and publishes no protected resource metadata: it does not ask for an OAuth login", first)
}

// probeRequestVersion sends one request of the probe, without a token,
// with the MCP-Protocol-Version header when version is not "".
func (fl *loginFlow) probeRequestVersion(ctx context.Context, method, body, session, version string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, fl.cfg.URL, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range fl.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	return fl.client.Do(req)
}

// discoverVersion is the revision whose first request is server/discover.
const discoverVersion = "2026-07-28"

// probeDiscover asks without a token as a 2026-07-28 client starts: a
// server/discover with the MCP-Protocol-Version header and the request's
// _meta, then, when that goes through, tools/list the same way. It
// returns the challenge of a 401 (or insufficient_scope) answer.
func (fl *loginFlow) probeDiscover(ctx context.Context) (string, bool) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + discoverVersion + `","io.modelcontextprotocol/clientInfo":{"name":"ollm","version":"login"},"io.modelcontextprotocol/clientCapabilities":{}}`
	for i, method := range []string{"server/discover", "tools/list"} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, i, method, meta)
		r, err := fl.probeRequestVersion(ctx, http.MethodPost, body, "", discoverVersion)
		if err != nil {
			return "", false
		}
		_ = r.Body.Close()
		if r.StatusCode == http.StatusUnauthorized || insufficientScope(r) {
			return challengeOf(r), true
		}
		if r.StatusCode/100 != 2 {
			return "", false
		}
	}
	return "", false
}

// probeRequest sends one request of the probe, without a token.
func (fl *loginFlow) probeRequest(ctx context.Context, method, body, session string) (*http.Response, error) {
	version := ""
	if session != "" {
		version = probeVersion
	}
	return fl.probeRequestVersion(ctx, method, body, session, version)
}

// resourceMetadata is what ollm reads of protected resource metadata
// (RFC 9728).
type resourceMetadata struct {
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// hasResourceMetadata reports whether the server publishes protected
// resource metadata naming an authorization server at an RFC 9728
// well-known URI (path-aware, then the root).
func (fl *loginFlow) hasResourceMetadata(ctx context.Context) bool {
	_, ok := fl.resourceMetadata(ctx, "")
	return ok
}

// resourceMetadata fetches the server's protected resource metadata: at
// the challenge's resource_metadata URL (same origin only) when given,
// else at the RFC 9728 well-known URIs (path-aware, then the root). ok
// is false when none names an authorization server.
func (fl *loginFlow) resourceMetadata(ctx context.Context, challenge string) (resourceMetadata, bool) {
	u, err := url.Parse(fl.cfg.URL)
	if err != nil || u.Host == "" {
		return resourceMetadata{}, false
	}
	root := u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource"
	locations := []string{root + strings.TrimSuffix(u.EscapedPath(), "/"), root}
	if named := sameOriginMetadata(challenge, fl.cfg.URL); named != "" {
		locations = []string{named}
	}
	for _, at := range locations {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, at, nil)
		if err != nil {
			return resourceMetadata{}, false
		}
		req.Header.Set("Accept", "application/json")
		resp, err := fl.client.Do(req)
		if err != nil {
			continue
		}
		var prm resourceMetadata
		ok := resp.StatusCode == http.StatusOK && json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&prm) == nil && len(prm.AuthorizationServers) > 0
		_ = resp.Body.Close()
		if ok {
			return prm, true
		}
	}
	return resourceMetadata{}, false
}

// scopes are the scopes to ask for, in the MCP spec's order (scope
// selection strategy): the configured ones, else those the server's
// challenge names (the scope parameter of the 401's WWW-Authenticate),
// else all the protected resource metadata list in scopes_supported,
// else none (the authorization server's default).
func (fl *loginFlow) scopes(ctx context.Context, challenge string) []string {
	if fl.oauth != nil && len(fl.oauth.Scopes) > 0 {
		return slices.Clone(fl.oauth.Scopes)
	}
	if named := strings.Fields(challengeParam(challenge, "scope")); len(named) > 0 {
		return named
	}
	if prm, ok := fl.resourceMetadata(ctx, challenge); ok {
		return slices.Clone(prm.ScopesSupported)
	}
	return nil
}

// clientID is the id of a client registered beforehand; "" when there is
// none (a client ID metadata document, or ollm registers itself).
func (fl *loginFlow) clientID() string {
	if fl.oauth == nil || fl.foreignClient {
		return ""
	}
	return fl.oauth.ClientID
}

// register decides which client logs in, in the order the MCP spec gives
// (client registration, 2025-11-25): a client registered beforehand
// (OAuthClient.ClientID); else a client ID metadata document, when one is
// configured and the authorization server says it supports them
// (client_id_metadata_document_supported) and the document is right;
// else dynamic client registration (RFC 7591). It returns the handler to
// log in with (a new one when the client id changed).
func (fl *loginFlow) register(ctx context.Context, h *transport.OAuthHandler, rec *tokenRecord) (*transport.OAuthHandler, error) {
	md, err := h.GetServerMetadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("discovering the authorization server: %w", err)
	}
	if fl.clientID() != "" && fl.oauth.issuer != "" && fl.oauth.issuer != md.Issuer {
		// The client was registered at another authorization server
		// (the stored record's, before the server moved): its id and
		// secret are not sent here; ollm registers anew, or says which
		// client to give.
		fl.foreignClient = true
		rec.ClientID, rec.ClientSecret, rec.PreRegistered = "", "", false
	}
	if fl.clientID() != "" {
		if err := checkMetadata(md, true); err != nil {
			return nil, err
		}
		rec.ClientID, rec.ClientSecret, rec.PreRegistered = fl.clientID(), fl.oauth.ClientSecret, true
		return h, nil
	}
	if fl.oauth != nil && fl.oauth.MetadataURL != "" {
		use, err := fl.metadataDocument(ctx, md, rec)
		if err != nil {
			return nil, err
		}
		if use {
			if err := checkMetadata(md, true); err != nil {
				return nil, err
			}
			rec.ClientID, rec.PreRegistered = fl.oauth.MetadataURL, true
			return newOAuthHandler(*rec, fl.file, fl.client, fl.cfg.URL), nil
		}
	}
	if err := checkMetadata(md, false); err != nil {
		return nil, err
	}
	fl.watch.nativeAt(md.RegistrationEndpoint)
	if err := h.RegisterClient(ctx, "ollm"); err != nil {
		return nil, fmt.Errorf("registering ollm as a client at %s (dynamic client registration, RFC 7591): %w", md.Issuer, err)
	}
	rec.ClientID, rec.ClientSecret, rec.AuthMethod = h.GetClientID(), h.GetClientSecret(), h.GetTokenEndpointAuthMethod()
	return h, nil
}

// checkMetadata refuses an authorization server ollm cannot use safely:
// without PKCE S256 (MCP requires clients to refuse then), or, when ollm
// is to register itself, without dynamic registration. Metadata that are
// the 2025-03-26 default endpoints (no document was found) list no
// methods; PKCE is used with them all the same.
func checkMetadata(md *transport.AuthServerMetadata, preRegistered bool) error {
	if !isDefaultEndpoints(md) && !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		return fmt.Errorf("the authorization server %s does not support PKCE with S256 (code_challenge_methods_supported %v), which MCP requires", md.Issuer, md.CodeChallengeMethodsSupported)
	}
	if md.RegistrationEndpoint == "" && !preRegistered {
		return fmt.Errorf("the authorization server %s offers no dynamic client registration (RFC 7591); register ollm there yourself and log in with --client-id (and --client-secret-env)", md.Issuer)
	}
	return nil
}

// authorize sends the user to the authorization page and waits for the
// browser to come back to the loopback listener with the code.
func (fl *loginFlow) authorize(ctx context.Context, h *transport.OAuthHandler, ln net.Listener) error {
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return err
	}
	authURL, err := h.GetAuthorizationURL(ctx, state, transport.GenerateCodeChallenge(verifier))
	if err != nil {
		return err
	}
	md, err := h.GetServerMetadata(ctx)
	if err != nil {
		return err
	}
	iss := issCheck{issuer: md.Issuer, required: fl.watch.issSupported(md.Issuer)}
	done := make(chan error, 1)
	srv := &http.Server{Handler: callbackHandler(fl.name, h, verifier, iss, done), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	if err := fl.opts.OpenURL(authURL); err != nil {
		return fmt.Errorf("opening the authorization page: %w", err)
	}
	return waitCallback(ctx, done, orDuration(fl.opts.Timeout, DefaultLoginTimeout))
}

func waitCallback(ctx context.Context, done <-chan error, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("the browser did not come back within %s; run the login again", timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// callbackHandler receives the authorization response on /callback: the
// issuer must be the one asked (RFC 9207) and the state the one sent,
// then the code is exchanged (with the PKCE verifier) and the tokens
// saved. The first answer ends the login.
func callbackHandler(server string, h *transport.OAuthHandler, verifier string, iss issCheck, done chan<- error) http.Handler {
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		err := callbackResult(r.Context(), h, r.URL.Query(), verifier, iss)
		once.Do(func() { done <- err })
		page(w, server, err)
	})
	return mux
}

func callbackResult(ctx context.Context, h *transport.OAuthHandler, q url.Values, verifier string, iss issCheck) error {
	if err := iss.check(q); err != nil { // error responses carry iss too (RFC 9207 §2)
		return err
	}
	if e := q.Get("error"); e != "" {
		return fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
	}
	if q.Get("code") == "" {
		return errors.New("the browser came back without a code")
	}
	err := h.ProcessAuthorizationResponse(ctx, q.Get("code"), q.Get("state"), verifier)
	if errors.Is(err, transport.ErrInvalidState) {
		return errors.New("the callback's state is not the one ollm sent (a forged or stale request); nothing was stored")
	}
	return err
}

// page is what the browser shows after the callback.
func page(w http.ResponseWriter, server string, err error) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	msg := "ollm is now logged in to the MCP server " + server + ". You can close this window."
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		msg = "ollm could not log in to the MCP server " + server + ": " + err.Error()
	}
	fmt.Fprintf(w, "<!doctype html><title>ollm</title><p>%s</p>\n", html.EscapeString(msg))
}

// sameOriginMetadata is the resource_metadata URL of a WWW-Authenticate
// challenge when it has the server's scheme and host (RFC 9728 requires
// the resource to serve its own metadata; another origin is ignored, as
// mcp-go ignores it), else "".
func sameOriginMetadata(challenge, serverURL string) string {
	const key = `resource_metadata="`
	i := strings.Index(challenge, key)
	if i < 0 {
		return ""
	}
	rest := challenge[i+len(key):]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	m, err1 := url.Parse(rest[:j])
	s, err2 := url.Parse(serverURL)
	if err1 != nil || err2 != nil || m.Host == "" || !strings.EqualFold(m.Scheme, s.Scheme) || !strings.EqualFold(m.Host, s.Host) {
		return ""
	}
	return m.String()
}

// lookupEnv is a variable's value: the extension's settings, else the
// environment.
func lookupEnv(name string, environ []string, settings map[string]string) string {
	if v, ok := settings[name]; ok {
		return v
	}
	for _, kv := range environ {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v
		}
	}
	return ""
}

// useDPoP makes a DPoP key for the login when the authorization server's
// metadata or the server's challenge ask for DPoP (RFC 9449): the key
// goes into the record and the token requests carry proofs made with it.
func (fl *loginFlow) useDPoP(md *transport.AuthServerMetadata, challenge string, rec *tokenRecord) error {
	if !dpopWanted(fl.watch.dpopAlgs(md.Issuer), challenge) {
		return nil
	}
	key, err := newDPoPKey()
	if err != nil {
		return fmt.Errorf("making a DPoP key: %w", err)
	}
	rec.DPoPKey = key.encode()
	fl.dpop.bind(key, md.TokenEndpoint)
	return nil
}

// warn passes msg to the login's Warn, naming the server.
func (fl *loginFlow) warn(msg string) {
	if fl.opts.Warn != nil {
		fl.opts.Warn(fmt.Sprintf("MCP server %q: %s", fl.name, msg))
	}
}
