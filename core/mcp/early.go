package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/ollm/ollm/core/tool"
)

// Nothing waits (issue 29): with Options.EarlyTools a session's first
// prompt does not wait for a stdio server whose tools the tool cache
// holds. While the server's first connection attempt runs, its entry's
// tools are offered in its place (Tools, Status.Cached); WaitReady skips
// it. The entry is keyed by what identifies the server (toolCacheKey:
// command, arguments with the version the lock pins, directory, its own
// environment, capabilities, the extension's pin, and the size and
// modification time of its program and of the files its arguments name),
// so a changed server misses and is waited for as before.
//
// An entry only names tools and their schemas: it never decides whether
// a call runs. A call to a tool offered from it (callEarly) waits for
// that server alone (its connection is bounded by mcp.connectionTimeout)
// and then goes through the server's own list: a tool the server does not
// list is refused naming server and tool, a tool whose kind or risk
// changed is refused so that policy decides on the server's definition,
// and the arguments are checked against the server's schema. A planted
// tool therefore never reaches a server. Once the server is ready its own
// list replaces the entry's at the next request.

// earlyMode reports whether s may offer tools from the tool cache.
func (m *Manager) earlyMode(s *server) bool {
	return m.opts.EarlyTools && m.toolCache != nil && s.spec.Transport() == TransportStdio
}

// earlyCandidate says whether s may offer its tools from the tool cache
// once started (approval aside, which Start decides).
func (m *Manager) earlyCandidate(s *server) bool {
	return !m.opts.Disabled && s.spec.Config.Enabled && s.spec.Off == "" && m.earlyMode(s)
}

// loadAllEarly looks up the tool cache entries of the servers Start is
// about to start, all of them before any process starts: 50 node servers
// starting take both cores of a small machine for seconds, and a look-up
// queued behind them made a first prompt wait 0.5-1 s for the cache.
func (m *Manager) loadAllEarly() { m.earlyOnce.Do(m.loadAllEarlyOnce) }

func (m *Manager) loadAllEarlyOnce() {
	var todo []*server
	for _, name := range m.order {
		s := m.servers[name]
		if s.earlyKnown == nil {
			continue
		}
		if !s.spec.NeedsApproval() || m.opts.Approved != nil && m.opts.Approved(s.spec) {
			todo = append(todo, s)
		} else {
			close(s.earlyKnown) // waiting for approval: nothing offered
		}
	}
	var wg sync.WaitGroup
	next := make(chan *server)
	for range min(len(todo), runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				m.loadEarly(s)
			}
		}()
	}
	for _, s := range todo {
		next <- s
	}
	close(next)
	wg.Wait()
}

// loadEarly looks up s's tool cache entry before its first connection
// and offers its tools.
func (m *Manager) loadEarly(s *server) {
	defer close(s.earlyKnown)
	cfg := ExpandServer(s.spec.Name, s.spec.Config, m.opts.Environ, s.spec.SettingsEnv, s.spec.vars(&m.opts))
	c := &conn{spec: s.spec, cfg: cfg, opts: &m.opts, log: slog.New(slog.DiscardHandler)}
	e, err := m.toolCache.load(toolCacheKey(s.spec, cfg, c.offered()))
	if err != nil || e == nil {
		return // a broken entry is named in the log when the server lists its tools
	}
	defs, _ := m.convert(s, c, e.Tools)
	for _, d := range defs {
		d.early = true
	}
	m.mu.Lock()
	s.early, s.cached = defs, true
	m.toolsValid = false
	m.mu.Unlock()
	// No event here: Start's, which follows, carries the tools; one per
	// server here made each recompute the whole tool set (issue 29, first
	// request within 50 ms).
}

// offersEarly reports, for WaitReady, whether s's tools are offered from
// the tool cache, so a first prompt need not wait for it. It waits for
// the (local, quick) look-up of the entry.
func (m *Manager) offersEarly(ctx context.Context, s *server) bool {
	if s.earlyKnown == nil {
		return false
	}
	select {
	case <-s.earlyKnown:
	case <-s.settled:
		return false
	case <-ctx.Done():
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return s.cached
}

// offersEarlyLocked reports whether s's cached tools stand in for its
// own: it found an entry and its first connection attempt is still
// running. m.mu is held.
func (s *server) offersEarlyLocked() bool {
	if !s.cached || s.status.State != StateConnecting {
		return false
	}
	select {
	case <-s.settled:
		return false
	default:
		return true
	}
}

// rememberEarly records the model-facing name a cached tool was offered
// under. m.mu is held.
func (m *Manager) rememberEarly(name string, key ToolKey) {
	if m.earlyNames == nil {
		m.earlyNames = map[string]ToolKey{}
	}
	m.earlyNames[name] = key
}

// lookupEarly finds a tool offered from the tool cache that the server's
// own list has since replaced, so that a model still calling it by that
// name is told what happened (callEarly) rather than "unknown tool".
func (m *Manager) lookupEarly(name string) (tool.Tool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key, ok := m.earlyNames[name]
	if !ok {
		return nil, false
	}
	s := m.servers[key.Server]
	if s == nil {
		return nil, false
	}
	for _, d := range s.early {
		if d.key == key {
			return &mcpTool{m: m, def: d, name: name}, true
		}
	}
	return nil, false
}

// callEarly calls a tool offered from the tool cache: it waits for its
// server's first connection attempt to end (that server only), then
// checks the call against the server's own list before making it.
func (m *Manager) callEarly(ctx context.Context, def *toolDef, params json.RawMessage, out func(tool.Chunk)) (tool.Result, error) {
	key := def.key
	m.mu.Lock()
	s, ok := m.servers[key.Server]
	m.mu.Unlock()
	if !ok {
		return tool.Result{}, fmt.Errorf("no MCP server %q", key.Server)
	}
	m.need(s) // the start gate may still hold it (deferstart.go)
	select {
	case <-s.settled:
	case <-ctx.Done():
		return errResult(tool.ErrCancelled, "call to MCP tool %s cancelled while waiting for MCP server %q to connect (%v)", key, key.Server, ctx.Err()), nil
	}
	m.mu.Lock()
	st := s.snapshot()
	var real *toolDef
	for _, d := range s.defs {
		if d.key.Tool == key.Tool {
			real = d
		}
	}
	m.mu.Unlock()
	if st.State != StateReady {
		return errResult(tool.ErrUnavailable, "MCP tool %s cannot run: MCP server %q (%s) did not connect%s; its log: %s",
			key, key.Server, m.command(s), colon(st.Error), logCommand(st.Log)), nil
	}
	if real == nil {
		return errResult(tool.ErrNotFound, "MCP server %q has no tool %q: it was offered from the tool cache of an earlier run, and the server, now connected, does not list it; its current tools are offered from the next request on", key.Server, key.Tool), nil
	}
	if real.kind != def.kind || real.risk != def.risk {
		return errResult(tool.ErrUnavailable, "MCP tool %s changed since it was cached (kind %s, risk %s; now kind %s, risk %s); it was not called: call it again to have it checked as the server defines it now",
			key, def.kind, def.risk, real.kind, real.risk), nil
	}
	v, err := real.validatorFor()
	if err != nil {
		return errResult(tool.ErrInvalidParams, "%v", err), nil
	}
	params, err = v.Validate(params)
	if err != nil {
		return errResult(tool.ErrInvalidParams, "MCP tool %s: the arguments do not match the server's current schema (the tool cache's was older): %v", key, err), nil
	}
	return m.Call(ctx, key, params, out)
}

// logCommand is the command that shows a server's log.
func logCommand(path string) string {
	if path == "" {
		return "run `ollm mcp list` to see why"
	}
	return "tail -n 50 " + strconv.Quote(path)
}

// programIdentity names the program a stdio server runs and the files
// its arguments name, by path, size and modification time, for the tool
// cache key: a server binary or script replaced in place is another
// server. dir is where the server runs; path lookups use ollm's PATH, as
// starting it does.
func programIdentity(command, dir string, args []string) []string {
	var out []string
	stat := func(p string) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p+"\x00"+strconv.FormatInt(fi.Size(), 10)+"\x00"+strconv.FormatInt(fi.ModTime().UnixNano(), 10))
		}
	}
	if filepath.Base(command) == command {
		if p, err := exec.LookPath(command); err == nil {
			command = p
		}
	}
	stat(command)
	for _, a := range args {
		if a != "" && a[0] != '-' {
			stat(a)
		}
	}
	return out
}
