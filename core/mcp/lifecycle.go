package mcp

import (
	"context"
	"errors"
	"fmt"
	"github.com/ollm/ollm/internal/secrets"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// stableAfter is how long a server must stay up to earn its restarts back.
const stableAfter = time.Minute

// run connects a server and keeps it connected: a stdio server that was
// ready and then exits or crashes is restarted with backoff. A server that
// never got ready is not retried: its configuration needs fixing first.
func (m *Manager) run(s *server) {
	defer m.wg.Done()
	defer s.settle.Do(func() { close(s.settled) })
	for {
		c, err := m.connect(s)
		if err != nil {
			if !m.isClosing() {
				m.setState(s, StateFailed, err)
			}
			return
		}
		s.settle.Do(func() { close(s.settled) })
		if m.opts.StopWhenReady {
			m.release(s, c)
			return
		}
		<-c.lost
		if m.isClosing() {
			return
		}
		c.close()
		m.setState(s, StateFailed, m.lostError(s, c))
		if !m.waitRestart(s) {
			return
		}
	}
}

// release stops a ready server whose status and tools are all its
// command needs (Options.StopWhenReady). On two cores a node server's
// teardown costs about as much CPU as ten milliseconds of another's
// start: stopping each one as it gets ready spreads the teardowns over
// the others' start-up instead of queueing them all at the end.
func (m *Manager) release(s *server, c *conn) {
	m.mu.Lock()
	if s.conn == c {
		s.conn = nil
	}
	m.mu.Unlock()
	c.close()
}

// waitRestart waits out the backoff before the next start and reports
// whether to restart at all.
func (m *Manager) waitRestart(s *server) bool {
	if s.spec.Transport() != TransportStdio {
		return false
	}
	if time.Since(s.readyAt) > stableAfter {
		s.attempts = 0
	}
	if s.attempts >= m.opts.Restart.max() {
		return false
	}
	t := time.NewTimer(m.opts.Restart.delay(s.attempts))
	defer t.Stop()
	select {
	case <-t.C:
	case <-m.ctx.Done():
		return false
	}
	s.attempts++
	m.mu.Lock()
	s.status.Restarts++
	m.mu.Unlock()
	m.setState(s, StateConnecting, nil)
	return true
}

// connect connects a server; an HTTP server that refuses for lack of a
// valid OAuth token gets a login through Options.OpenURL and one more
// attempt, or, without OpenURL, an error that says how to log in.
func (m *Manager) connect(s *server) (*conn, error) {
	c, err := m.connectOnce(s)
	if err == nil || !s.auth.wantsLogin() {
		return c, err
	}
	if m.opts.OpenURL == nil && s.spec.grant() != GrantClientCredentials {
		return nil, m.loginNeeded(s)
	}
	if err := m.login(s); err != nil {
		return nil, err
	}
	c, err = m.connectOnce(s)
	if err != nil && s.auth.wantsLogin() {
		return nil, m.loginNeeded(s)
	}
	return c, err
}

// loginNeeded says that the server wants an OAuth login and how to do it.
func (m *Manager) loginNeeded(s *server) error {
	return m.serverError(s, "connecting", fmt.Errorf("the server requires an OAuth login (HTTP 401) and no valid token is stored; run in a terminal: %s", s.spec.loginCommand()))
}

// login runs the browser login for s, one server at a time.
func (m *Manager) login(s *server) error {
	m.loginMu.Lock()
	defer m.loginMu.Unlock()
	err := Login(m.ctx, s.spec, LoginOptions{TokenDir: m.opts.TokenDir, HTTPClient: m.opts.HTTPClient,
		Environ: m.opts.Environ, Roots: m.opts.Roots, OpenURL: m.opts.OpenURL, Timeout: m.opts.LoginTimeout})
	if err != nil {
		return fmt.Errorf("%w; run in a terminal: %s", err, s.spec.loginCommand())
	}
	return nil
}

// authFor is the OAuth transport of an HTTP server, made once; nil for
// stdio servers and without a TokenDir.
func (m *Manager) authFor(s *server) *authTransport {
	if s.auth != nil || m.opts.TokenDir == "" || s.spec.Transport() == TransportStdio {
		return s.auth
	}
	cfg := ExpandServer(s.spec.Name, s.spec.Config, m.opts.Environ, s.spec.SettingsEnv, s.spec.vars(&m.opts))
	base := m.opts.httpClient().Transport
	if base == nil {
		base = http.DefaultTransport
	}
	s.auth = newAuthTransport(base, m.opts.TokenDir, s.spec.tokenName(), cfg.URL)
	if m.opts.OpenURL != nil || s.spec.grant() == GrantClientCredentials {
		s.auth.stepUp = func(ctx context.Context, need []string) error { return m.stepUp(s, need) }
		s.auth.login = func(context.Context) error { return m.login(s) }
	}
	return s.auth
}

// stepUp logs in to s again asking for the scopes of its last login and
// need, which the server said a request lacks (insufficient_scope); not
// when the last login asked for all of them already (the server would
// get the same token and refuse again).
// It runs on the Manager's context: the request that asked may have a
// shorter deadline than a user in a browser.
func (m *Manager) stepUp(s *server, need []string) error {
	spec := s.spec
	oauth := OAuthClient{}
	if spec.OAuth != nil {
		oauth = *spec.OAuth
	}
	wanted := slices.Clone(oauth.Scopes)
	var asked []string
	had := false
	if rec, err := (&tokenFile{path: tokenPath(m.opts.TokenDir, spec.tokenName())}).load(s.auth.url); err == nil {
		wanted = append(wanted, rec.Scopes...)
		asked, had = rec.Scopes, true
		if rec.PreRegistered && oauth.ClientID == "" && oauth.MetadataURL == "" {
			// The record's client, given by the user, belongs to the
			// authorization server that issued the record: Login uses it
			// only there (a client ID metadata document URL is checked
			// as such wherever it goes).
			if strings.HasPrefix(rec.ClientID, "https://") || strings.HasPrefix(rec.ClientID, "http://") {
				oauth.MetadataURL = rec.ClientID
			} else {
				oauth.ClientID, oauth.ClientSecret, oauth.issuer = rec.ClientID, rec.ClientSecret, rec.Issuer
			}
		}
	}
	var scopes []string
	for _, n := range append(wanted, need...) {
		if !slices.Contains(scopes, n) {
			scopes = append(scopes, n)
		}
	}
	if had && !slices.ContainsFunc(scopes, func(sc string) bool { return !slices.Contains(asked, sc) }) {
		// The last login asked for all of them already and the server
		// still refuses: another login would get the same token.
		return fmt.Errorf("the last login already asked for %q", strings.Join(scopes, " "))
	}
	oauth.Scopes = scopes
	spec.OAuth = &oauth
	if s.logs != nil {
		slog.New(slog.NewTextHandler(s.logs, nil)).Info("step-up: the server wants more OAuth scope; logging in again", "server", spec.Name, "scopes", scopes)
	}
	m.loginMu.Lock()
	defer m.loginMu.Unlock()
	return Login(m.ctx, spec, LoginOptions{TokenDir: m.opts.TokenDir, HTTPClient: m.opts.HTTPClient,
		Environ: m.opts.Environ, Roots: m.opts.Roots, OpenURL: m.opts.OpenURL, Timeout: m.opts.LoginTimeout})
}

// connectOnce starts, initializes and lists the tools of one server within
// the connection timeout, and publishes it as ready.
func (m *Manager) connectOnce(s *server) (*conn, error) {
	if err := m.ctx.Err(); err != nil {
		return nil, err // closed before this server's turn to start
	}
	if err := m.openLog(s); err != nil {
		return nil, m.serverError(s, "opening its log", err)
	}
	timeout := m.opts.connTimeout()
	ctx, cancel := context.WithTimeout(m.ctx, timeout)
	defer cancel()
	auth := m.authFor(s)
	auth.reset()
	c, err := dial(s.spec, &m.opts, s.logs, auth, m.protocols, m.toolCache, func() { m.requestRefresh(s) })
	if err != nil {
		return nil, m.serverError(s, "starting", err)
	}
	pre := m.prefetch(s, c) // while the server starts
	stage := "initialize"
	err = c.initialize(ctx)
	if err != nil && c.pinned != "" && refusedHandshake(err) {
		// The server was remembered speaking the initialize handshake and
		// now refuses it (it may have moved to 2026-07-28): forget, and
		// connect again with the server/discover probe.
		c.log.Warn("remembered protocol refused; probing again", "protocol", c.pinned, "err", err)
		c.close()
		m.protocols.remember(c.protoKey, s.spec.Name, "")
		if c, err = dial(s.spec, &m.opts, s.logs, auth, m.protocols, m.toolCache, func() { m.requestRefresh(s) }); err != nil {
			return nil, m.serverError(s, "starting", err)
		}
		err = c.initialize(ctx)
	}
	if err == nil {
		m.protocols.remember(c.protoKey, s.spec.Name, c.protocol())
		var listening chan struct{}
		if c.hasGetStream() {
			listening = make(chan struct{})
			go c.listen(listening)
		}
		if why := c.wire.discoverRejected(); why != "" {
			c.log.Warn("connected with the initialize handshake after an invalid server/discover result", "protocol", c.protocol(), "discover", why)
		}
		stage = "tools/list"
		var defs []*toolDef
		defs, err = m.toolsAtConnect(ctx, s, c, pre)
		if err == nil {
			waitGetStream(ctx, listening)
			return c, m.publish(s, c, defs)
		}
	}
	err = m.connectError(s, c, stage, ctx, err, timeout)
	c.close()
	return nil, err
}

// publish makes a connected server ready, unless Close came first.
func (m *Manager) publish(s *server, c *conn, defs []*toolDef) error {
	m.mu.Lock()
	if m.closing {
		m.mu.Unlock()
		c.close()
		return errClosed
	}
	s.conn, s.defs, s.readyAt = c, defs, time.Now()
	s.status.State, s.status.Error, s.status.Protocol, s.status.Since = StateReady, "", c.protocol(), time.Time{}
	m.toolsValid = false
	m.mu.Unlock()
	if s.auth != nil {
		s.auth.connected.Store(true) // a 401 from now on may log in by itself
	}
	m.emit(s)
	go m.refreshLoop(s, c)
	return nil
}

// openLog opens s's log once. Status reads s.logs under m.mu (a session
// asks for statuses while its servers start), so it is set under m.mu.
func (m *Manager) openLog(s *server) error {
	m.mu.Lock()
	have := s.logs != nil
	m.mu.Unlock()
	if have {
		return nil
	}
	// The log is redacted like every error: the server's secrets as
	// known when it starts, and URL credentials.
	known := m.secretsOf(s)
	l, err := openServerLog(m.opts.LogDir, s.spec.Name, orInt64(m.opts.MaxLogBytes, DefaultMaxLogBytes),
		func(text string) string { return secrets.Scrub(text, known) })
	if err != nil {
		return err
	}
	m.mu.Lock()
	s.logs = l
	m.mu.Unlock()
	return nil
}

func orInt64(n, def int64) int64 {
	if n > 0 {
		return n
	}
	return def
}

// serverError names the server and its command, as every error should.
// Its text never shows the server's secrets (see secretsOf), whatever err
// or the server's stderr quoted in it contains.
func (m *Manager) serverError(s *server, doing string, err error) error {
	msg := fmt.Sprintf("MCP server %q (%s): %s: %v", s.spec.Name, describeCommand(s.spec), doing, err)
	return &redactedError{msg: m.redact(s, msg), err: err}
}

// connectError explains why a connection attempt failed and what to do.
func (m *Manager) connectError(s *server, c *conn, stage string, ctx context.Context, err error, timeout time.Duration) error {
	if lost := c.causeOf(err); lost != nil && !errors.Is(lost, errClosed) {
		return m.serverError(s, stage, fmt.Errorf("%v before answering%s%s", lost, m.stderrHint(s), s.logs.where()))
	}
	if need, ok := s.auth.insufficientScope(); ok {
		return m.serverError(s, stage, fmt.Errorf("the server refused the request for lack of OAuth scope (insufficient_scope, it wants %q); run in a terminal: %s --scope %q", need, s.spec.loginCommand(), m.stepUpScopes(s, need)))
	}
	if errors.Is(err, transport.ErrAuthorizationRequired) {
		return m.serverError(s, stage, fmt.Errorf("the server refused the request (HTTP 401 Unauthorized): check the credentials mcp.servers.%s.headers sends (`ollm trust` and `ollm profile show` list them): %w%s",
			s.spec.Name, err, s.logs.where()))
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return m.serverError(s, stage, fmt.Errorf("no answer within %s (mcp.connectionTimeout); check that it speaks MCP over %s, or raise the timeout%s",
			timeout, s.spec.Transport(), s.logs.where()))
	}
	return m.serverError(s, stage, err)
}

// stderrHint quotes the last line of the server's stderr, redacted as a
// whole first, so a short secret that is all of the line goes too.
func (m *Manager) stderrHint(s *server) string {
	if last := s.logs.lastStderr(); last != "" {
		return ": " + shorten(m.redact(s, last))
	}
	return ""
}

// lostError explains a connection that ended while ready.
func (m *Manager) lostError(s *server, c *conn) error {
	return m.serverError(s, "connection lost", fmt.Errorf("%v%s%s", c.lostReason(), m.stderrHint(s), s.logs.where()))
}

// requestRefresh asks for a tools/list refresh; requests coalesce. A
// Snapshot Manager does not refresh.
func (m *Manager) requestRefresh(s *server) {
	if m.opts.Snapshot {
		return
	}
	select {
	case s.refresh <- struct{}{}:
	default:
	}
}

// refreshLoop re-lists the tools on tools/list_changed while c is up.
func (m *Manager) refreshLoop(s *server, c *conn) {
	for {
		select {
		case <-c.lost:
			return
		case <-s.refresh:
		}
		ctx, cancel := context.WithTimeout(c.ctx, m.opts.connTimeout())
		defs, err := m.loadTools(ctx, s, c)
		cancel()
		if err != nil {
			if c.lostReason() == nil {
				c.log.Warn("tools/list after list_changed failed", "err", err)
			}
			continue
		}
		m.mu.Lock()
		current := s.conn == c
		if current {
			s.defs = defs
			m.toolsValid = false
		}
		m.mu.Unlock()
		if current {
			m.emit(s)
		}
	}
}

// refusedHandshake reports whether initialize failed with an answer from
// the server (a JSON-RPC error, an unknown protocol version), not a lost
// transport or a timeout: mcp-go wraps every transport failure in
// *transport.Error.
func refusedHandshake(err error) bool {
	var te *transport.Error
	return !errors.As(err, &te) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled)
}

// listenWait bounds how long a connection waits for its GET stream.
const listenWait = time.Second

// waitGetStream waits, at most listenWait, until the GET stream is open
// (or failed), so that the first call goes out with the server able to
// send on it: a server that sends a call's elicitation on the GET stream
// drops it when the stream is not open yet (the conformance suite's
// TypeScript server does), and the call then waits for nothing.
func waitGetStream(ctx context.Context, listening <-chan struct{}) {
	if listening == nil {
		return
	}
	t := time.NewTimer(listenWait)
	defer t.Stop()
	select {
	case <-listening:
	case <-t.C:
	case <-ctx.Done():
	}
}

// stepUpScopes are the scopes a login by hand should ask for when the
// server wants need: those the last login asked for (the token record,
// else the configured ones) and need, as a step-up does (the union, so
// the new token keeps what the old one could do).
func (m *Manager) stepUpScopes(s *server, need string) string {
	var scopes []string
	if s.spec.OAuth != nil {
		scopes = slices.Clone(s.spec.OAuth.Scopes)
	}
	if m.opts.TokenDir != "" && s.auth != nil {
		if rec, err := (&tokenFile{path: tokenPath(m.opts.TokenDir, s.spec.tokenName())}).load(s.auth.url); err == nil {
			scopes = append(scopes, rec.Scopes...)
		}
	}
	var out []string
	for _, sc := range append(scopes, strings.Fields(need)...) {
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return strings.Join(out, " ")
}
