package mcp

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/core/tool"
)

// First request within 50 ms (issue 29): a stdio server whose tools the
// tool cache offers (early.go) need not run before the model has them,
// and 50 node servers starting at once take both cores of a small machine
// for a second or more, so the first request went out after ~300 ms
// instead of ~30. With Options.StartGate such a server's process is not
// started until the gate opens (the session's first model request has
// gone out, or a person has not typed one soon after start), unless
// something needs it sooner: a call to one of its tools (callEarly) or a
// wait for it (WaitServer) starts that server alone at once. Until it
// starts it is "connecting" with Status.Cached, as while its process
// starts; a server that then fails is reported as any other.

// StartGate holds back the processes of servers whose tools are cached
// until Open. One gate is shared by the Managers of a session (the
// profile's, the extensions', those approved later), so one Open starts
// them all. The zero value is not usable; make one with NewStartGate.
type StartGate struct {
	mu     sync.Mutex
	open   bool
	held   []func()
	opened chan struct{}
}

// NewStartGate makes a closed gate.
func NewStartGate() *StartGate { return &StartGate{opened: make(chan struct{})} }

// Open starts every server held so far; servers started later start at
// once. Only the first call does anything.
func (g *StartGate) Open() {
	g.mu.Lock()
	if g.open {
		g.mu.Unlock()
		return
	}
	g.open = true
	held := g.held
	g.held = nil
	close(g.opened)
	g.mu.Unlock()
	for _, start := range held {
		start()
	}
}

// IsOpen reports whether Open was called.
func (g *StartGate) IsOpen() bool {
	select {
	case <-g.opened:
		return true
	default:
		return false
	}
}

// hold queues start for Open and reports true, or, when the gate is open
// already, reports false (start now).
func (g *StartGate) hold(start func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open {
		return false
	}
	g.held = append(g.held, start)
	return true
}

// startOrHold starts s's connection, or, when its tools are offered from
// the tool cache and the gate is closed, leaves it for the gate (or for
// the first call that needs it).
func (m *Manager) startOrHold(s *server) {
	if g := m.opts.StartGate; g != nil && s.cached {
		s.held.Store(true)
		if g.hold(func() { m.spawn(s) }) {
			return
		}
	}
	m.spawn(s)
}

// spawn starts s's first connection attempt, once. After Close it only
// marks the server settled, so nothing waits for it.
func (m *Manager) spawn(s *server) {
	s.spawned.Do(func() {
		m.mu.Lock()
		if m.closing {
			m.mu.Unlock()
			s.settle.Do(func() { close(s.settled) })
			return
		}
		s.status.Since = time.Now()
		m.wg.Add(1) // under m.mu with closing false: before Close's Wait
		m.mu.Unlock()
		go m.run(s)
	})
}

// need starts s now if the gate still holds it: a caller waits for it.
func (m *Manager) need(s *server) {
	if s.held.Load() {
		m.spawn(s)
	}
}

// settleUnstarted, at Close, settles the servers the gate still holds, so
// a call waiting for one ends.
func (m *Manager) settleUnstarted() {
	for _, name := range m.order {
		s := m.servers[name]
		s.spawned.Do(func() { s.settle.Do(func() { close(s.settled) }) })
	}
}

// LookupDropped finds a tool offered from the tool cache under name that
// the registry holding this Manager's tools no longer has (the server,
// now connected, dropped it), so that a call to it is told which server
// and tool (callEarly) rather than the agent's "no tool". An extension's
// tools reach the session through the tool registry, which forgets them.
func (m *Manager) LookupDropped(name string) (tool.Tool, bool) { return m.lookupEarly(name) }

// markConnecting is Start's setState(StateConnecting) without the event:
// startConnecting sends the events once every server's state is set, so
// the tool set (names assigned over all servers' tools) is computed once,
// not once per server (with 50 servers and their cached tools, 13 ms of
// CPU before the first request).
func (m *Manager) markConnecting(s *server) {
	m.mu.Lock()
	s.status.State, s.status.Error, s.status.Since = StateConnecting, "", time.Now()
	s.defs, s.conn = nil, nil
	m.toolsValid = false
	s.connecting = true
	m.mu.Unlock()
}

// startConnecting tells OnEvent about, and starts (or leaves to the start
// gate), the servers markConnecting marked.
func (m *Manager) startConnecting() {
	for _, name := range m.order {
		if s := m.servers[name]; s.connecting {
			m.emit(s)
		}
	}
	for _, name := range m.order {
		if s := m.servers[name]; s.connecting {
			m.startOrHold(s)
		}
	}
}

// decodeToolEntry decodes a tool cache file in one pass, each tool's
// inputSchema kept as its server sent it in RawInputSchema (mcp-go's
// decoding keeps only part of it). Decoding it into ToolInputSchema too,
// then a second pass for the raw schemas, took half the look-up's CPU.
func decodeToolEntry(data []byte) (*toolEntry, error) {
	type rawTool struct {
		mcp.Tool
		InputSchema json.RawMessage `json:"inputSchema"` // shadows Tool's
	}
	var raw struct {
		toolEntry
		Tools []rawTool `json:"tools"` // shadows toolEntry's
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	e := raw.toolEntry
	e.Tools = make([]mcp.Tool, len(raw.Tools))
	for i, t := range raw.Tools {
		e.Tools[i] = t.Tool
		if len(t.InputSchema) > 0 && string(t.InputSchema) != "null" {
			e.Tools[i].RawInputSchema = t.InputSchema
		}
	}
	return &e, nil
}
