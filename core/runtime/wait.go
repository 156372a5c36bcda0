package runtime

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/ollm/ollm/core/mcp"
)

// A first prompt (`ollm run`, ACP's first session/prompt) waits for every
// MCP server's first connection attempt, so the model is offered all the
// tools it will have; an npx server's first start can take 20 s, so no
// fixed bound shorter than mcp.connectionTimeout is put on it
// (docs/decisions.md). It does not wait in silence: once the servers that
// answer quickly have settled, a notice names each server still
// connecting, how long it has been, when it is given up and how to skip
// it. A server that fails or times out is a warning and the prompt goes on
// with the others' tools. Nothing else waits: runtime.New, the TUI and
// ACP's session/new return while servers connect, and a server's tools
// join the session (AgentTools looks them up live) when it is ready.
// Issue 29: a stdio server whose tools the tool cache holds is not waited
// for at all; its cached tools stand in until it is ready
// (core/mcp/early.go); only a server without an entry is waited for.

// When the notice comes: not before waitNoticeAfter of waiting (a quarter
// of the connection timeout when that is shorter), once the set of
// servers still connecting has not shrunk for half that long; and at the
// latest after waitNoticeLatest (half the timeout when shorter), however
// many servers are still settling.
const (
	waitNoticeAfter  = 2 * time.Second
	waitNoticeLatest = 5 * time.Second
	waitPoll         = 200 * time.Millisecond
)

// WaitServersNotify is WaitServers for a first prompt: while it waits,
// notice is told about each server still connecting once the others have
// settled (see above). notice is never called after it returns; nil says
// nothing.
func (rt *Runtime) WaitServersNotify(ctx context.Context, notice func(string)) ([]string, error) {
	rt.mu.RLock()
	mgrs := []*mcp.Manager{rt.mcp}
	names := make([]string, 0, len(rt.approved))
	for n := range rt.approved {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		mgrs = append(mgrs, rt.approved[n])
	}
	rt.mu.RUnlock()

	if notice != nil {
		stop, stopped := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(stopped)
			rt.watchWait(stop, notice)
		}()
		defer func() { close(stop); <-stopped }()
	}

	var extErrs []error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		extErrs = rt.extServers.WaitReady(ctx)
	}()
	var err error
	for _, m := range mgrs {
		if err = m.WaitReady(ctx); err != nil {
			break
		}
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var warnings []string
	for _, m := range mgrs {
		for _, s := range m.Status() {
			if s.Error != "" && s.State != mcp.StateNeedsApproval {
				warnings = append(warnings, fmt.Sprintf("MCP server %s: %s", s.Name, s.Error))
			}
		}
		warnings = append(warnings, rt.addPrompts(ctx, m)...)
	}
	for _, e := range extErrs {
		warnings = append(warnings, e.Error())
	}
	return warnings, nil
}

// connectingServer is a server WaitServers is waiting for.
type connectingServer struct {
	name   string
	since  time.Time
	editor bool // passed by an editor, not in any profile
}

// stillConnecting lists the servers in their first (or a new) connection
// attempt: the profile's, those approved or started in this session, and
// the extensions'.
func (rt *Runtime) stillConnecting(waitStart time.Time) []connectingServer {
	all := rt.MCPStatus()
	for _, x := range rt.Ext.List() {
		all = append(all, x.ServerState...)
	}
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	var out []connectingServer
	for _, s := range all {
		if s.State != mcp.StateConnecting || s.Cached {
			continue // a server whose tools are cached is not waited for
		}
		since := s.Since
		if since.IsZero() {
			since = waitStart
		}
		out = append(out, connectingServer{name: s.Name, since: since, editor: rt.editor[s.Name]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// connTimeout is mcp.connectionTimeout in force.
func (rt *Runtime) connTimeout() time.Duration {
	if t := rt.Resolved().Profile.MCP.ConnectionTimeout; t > 0 {
		return time.Duration(t) * time.Millisecond
	}
	return mcp.DefaultConnectionTimeout
}

// watchWait tells notice, once, about the servers still connecting when
// the wait has gone on long enough (see the constants above); it returns
// when stop is closed.
func (rt *Runtime) watchWait(stop <-chan struct{}, notice func(string)) {
	timeout := rt.connTimeout()
	after, latest := min(waitNoticeAfter, timeout/4), min(waitNoticeLatest, timeout/2)
	quiet := after / 2
	start := time.Now()
	t := time.NewTicker(min(waitPoll, max(after/4, 10*time.Millisecond)))
	defer t.Stop()
	last, changed := -1, start
	for {
		var now time.Time
		select {
		case <-stop:
			return
		case now = <-t.C:
		}
		list := rt.stillConnecting(start)
		if len(list) != last {
			last, changed = len(list), now
		}
		waited := now.Sub(start)
		if len(list) == 0 || waited < after || (now.Sub(changed) < quiet && waited < latest) {
			continue
		}
		for _, s := range list {
			select {
			case <-stop:
				return
			default:
			}
			notice(waitNotice(s, now, timeout))
		}
		return
	}
}

// waitNotice says what the prompt waits for and how to stop waiting.
func waitNotice(s connectingServer, now time.Time, timeout time.Duration) string {
	skip := fmt.Sprintf("set enabled: false on it (mcp: overrides: %q: enabled: false)", s.name)
	if s.editor {
		skip = "remove it from the editor's MCP settings"
	}
	return fmt.Sprintf("waiting for MCP server %q (connecting for %s; gives up at mcp.connectionTimeout %s; %s or lower mcp.connectionTimeout)",
		s.name, seconds(now.Sub(s.since).Round(time.Second)), seconds(timeout), skip)
}

// seconds writes d in seconds: "2s", "1.5s", "60s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
