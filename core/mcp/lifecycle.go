package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"
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

// connect starts, initializes and lists the tools of one server within the
// connection timeout, and publishes it as ready.
func (m *Manager) connect(s *server) (*conn, error) {
	if err := m.openLog(s); err != nil {
		return nil, m.serverError(s, "opening its log", err)
	}
	timeout := m.opts.connTimeout()
	ctx, cancel := context.WithTimeout(m.ctx, timeout)
	defer cancel()
	c, err := dial(s.spec, &m.opts, s.logs, func() { m.requestRefresh(s) })
	if err != nil {
		return nil, m.serverError(s, "starting", err)
	}
	stage := "initialize"
	err = c.initialize(ctx)
	if err == nil {
		stage = "tools/list"
		var defs []*toolDef
		defs, err = m.loadTools(ctx, s, c)
		if err == nil {
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
	s.status.State, s.status.Error = StateReady, ""
	m.toolsValid = false
	m.mu.Unlock()
	m.emit(s)
	go m.refreshLoop(s, c)
	return nil
}

func (m *Manager) openLog(s *server) error {
	if s.logs != nil {
		return nil
	}
	l, err := openServerLog(m.opts.LogDir, s.spec.Name, orInt64(m.opts.MaxLogBytes, DefaultMaxLogBytes))
	if err != nil {
		return err
	}
	s.logs = l
	return nil
}

func orInt64(n, def int64) int64 {
	if n > 0 {
		return n
	}
	return def
}

// serverError names the server and its command, as every error should.
func (m *Manager) serverError(s *server, doing string, err error) error {
	return fmt.Errorf("MCP server %q (%s): %s: %w", s.spec.Name, describeCommand(s.spec), doing, err)
}

// connectError explains why a connection attempt failed and what to do.
func (m *Manager) connectError(s *server, c *conn, stage string, ctx context.Context, err error, timeout time.Duration) error {
	if lost := c.causeOf(err); lost != nil && !errors.Is(lost, errClosed) {
		return m.serverError(s, stage, fmt.Errorf("%v before answering%s%s", lost, stderrHint(s.logs), s.logs.where()))
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return m.serverError(s, stage, fmt.Errorf("no answer within %s (mcp.connectionTimeout); check that it speaks MCP over %s, or raise the timeout%s",
			timeout, s.spec.Transport(), s.logs.where()))
	}
	return m.serverError(s, stage, err)
}

func stderrHint(l *serverLog) string {
	if last := l.lastStderr(); last != "" {
		return ": " + last
	}
	return ""
}

// lostError explains a connection that ended while ready.
func (m *Manager) lostError(s *server, c *conn) error {
	return m.serverError(s, "connection lost", fmt.Errorf("%v%s%s", c.lostReason(), stderrHint(s.logs), s.logs.where()))
}

// requestRefresh asks for a tools/list refresh; requests coalesce.
func (m *Manager) requestRefresh(s *server) {
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
