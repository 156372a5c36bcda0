package cli

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/ollm/ollm/cmd/cli/tui"
	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/runtime"
)

// pendingNotes passes notifications (extensions, MCP warnings) to the TUI,
// keeping those that arrive before it exists (an MCP server's warning
// during its handshake) until flush.
type pendingNotes struct {
	ui      *atomic.Pointer[tui.AgentRuntime]
	mu      sync.Mutex
	waiting []hooks.Notification
	flushed bool
}

func (p *pendingNotes) notify(n hooks.Notification) {
	p.mu.Lock()
	if !p.flushed {
		p.waiting = append(p.waiting, n)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.show(n)
}

func (p *pendingNotes) show(n hooks.Notification) {
	if ui := p.ui.Load(); ui != nil {
		ui.OnEvent(agent.Event{Type: agent.EvNotification, Time: n.Time, Text: n.Label(), Notification: &n})
	}
}

func (p *pendingNotes) flush() {
	p.mu.Lock()
	w := p.waiting
	p.waiting, p.flushed = nil, true
	p.mu.Unlock()
	for _, n := range w {
		p.show(n)
	}
}

// extCommands are the commands of the hook engine in force (a reload
// replaces it).
type extCommands struct{ rt *runtime.Runtime }

func (x extCommands) Commands() []hooks.Command {
	if e := x.rt.Hooks(); e != nil {
		return e.Commands()
	}
	return nil
}

func (x extCommands) InvokeCommand(ctx context.Context, name, args string) (hooks.CommandResponse, error) {
	e := x.rt.Hooks()
	if e == nil {
		return hooks.CommandResponse{}, fmt.Errorf("no extension registered /%s", name)
	}
	return e.InvokeCommand(ctx, name, args)
}
