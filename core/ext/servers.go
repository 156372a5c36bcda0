package ext

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/tool"
)

// Servers starts and stops the MCP servers of one extension at a time.
// The Manager owns this interface; MCPServers implements it with
// core/mcp, and tests may stand in for it.
type Servers interface {
	// Start starts specs (all of one extension), waits until each has made
	// its first connection attempt or ctx ends, and returns their status.
	// onTools receives the extension's whole MCP tool set whenever it
	// changes (a server became ready, crashed or restarted).
	Start(ctx context.Context, ext string, specs []mcp.Spec, onTools func([]tool.Tool)) ([]mcp.Status, error)
	// Stop stops every server of ext and waits until they are gone.
	Stop(ext string) error
	// Status lists the servers of ext.
	Status(ext string) []mcp.Status
}

// MCPServers runs each extension's servers in a core/mcp Manager of its
// own, so one extension's servers start and stop without touching
// another's.
type MCPServers struct {
	// Options are used for every extension's Manager; OnEvent is set by
	// MCPServers and Reserved is combined with the tool registry check.
	Options mcp.Options
	// OnEvent, if set, is told about every server status change.
	OnEvent func(mcp.Event)

	mu   sync.Mutex
	mgrs map[string]*mcp.Manager
}

// Start implements Servers.
func (s *MCPServers) Start(ctx context.Context, ext string, specs []mcp.Spec, onTools func([]tool.Tool)) ([]mcp.Status, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	if err := s.Stop(ext); err != nil {
		return nil, err
	}
	opts := s.Options
	opts.OnEvent = func(ev mcp.Event) {
		if onTools != nil {
			onTools(ev.Tools)
		}
		if s.OnEvent != nil {
			s.OnEvent(ev)
		}
	}
	m := mcp.New(specs, opts)
	s.mu.Lock()
	if s.mgrs == nil {
		s.mgrs = map[string]*mcp.Manager{}
	}
	s.mgrs[ext] = m
	s.mu.Unlock()
	m.Start()
	werr := m.WaitReady(ctx)
	st := m.Status()
	var errs []error
	for _, x := range st {
		if x.State == mcp.StateFailed {
			errs = append(errs, fmt.Errorf("MCP server %s failed: %s", x.Name, x.Error))
		}
	}
	if werr != nil {
		errs = append(errs, fmt.Errorf("waiting for MCP servers: %w", werr))
	}
	return st, errors.Join(errs...)
}

// Stop implements Servers.
func (s *MCPServers) Stop(ext string) error {
	s.mu.Lock()
	m := s.mgrs[ext]
	delete(s.mgrs, ext)
	s.mu.Unlock()
	if m == nil {
		return nil
	}
	return m.Close()
}

// Status implements Servers.
func (s *MCPServers) Status(ext string) []mcp.Status {
	s.mu.Lock()
	m := s.mgrs[ext]
	s.mu.Unlock()
	if m == nil {
		return nil
	}
	return m.Status()
}
