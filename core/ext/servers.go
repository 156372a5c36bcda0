package ext

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/skills"
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
	// Skills, if set, receives the prompts of the extensions' ready
	// servers as skills of source mcp owned by the extension, so they are
	// invoked as "extension:prompt" like its other skills (two servers of
	// one extension with the same prompt: the later one wins). They are
	// there when Start returns, follow a server that fails or comes back,
	// and go when the extension's servers stop.
	Skills *skills.Registry
	// Background: Start starts the servers and returns at once (their
	// statuses "starting"); tools and prompts join as each server becomes
	// ready, failures arrive as events. A session is ready for its first
	// prompt without waiting for any server; WaitReady waits for them all
	// at once when that is wanted.
	Background bool

	mu       sync.Mutex
	held     chan struct{} // Hold: background servers wait for Release
	released sync.Once
	mgrs     map[string]*mcp.Manager
	runs     map[*mcp.Manager]*serverRun
}

// serverRun is what one extension's Manager added to Skills and the
// prompt loading in progress.
type serverRun struct {
	ext     string          // owner of the skills
	ctx     context.Context // ends with Stop
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started bool                // WaitReady returned: events load the prompts
	added   map[string][]string // server -> names of its prompts in Skills
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
	var m *mcp.Manager
	run := &serverRun{ext: ext, added: map[string][]string{}}
	run.ctx, run.cancel = context.WithCancel(context.Background())
	opts.OnEvent = func(ev mcp.Event) {
		if onTools != nil {
			onTools(ev.Tools)
		}
		s.promptEvent(m, run, ev)
		if s.OnEvent != nil {
			s.OnEvent(ev)
		}
	}
	m = mcp.New(specs, opts)
	s.mu.Lock()
	if s.mgrs == nil {
		s.mgrs, s.runs = map[string]*mcp.Manager{}, map[*mcp.Manager]*serverRun{}
	}
	s.mgrs[ext] = m
	s.runs[m] = run
	s.mu.Unlock()
	if s.Background {
		s.mu.Lock()
		run.started = s.Skills != nil // prompts load on each ready event
		held := s.held
		s.mu.Unlock()
		if held == nil {
			m.Start()
		} else {
			// Stop waits for this (run.wg) before it closes m, so a
			// Release racing a Stop never starts servers of a closed
			// Manager.
			run.wg.Add(1)
			go func() {
				defer run.wg.Done()
				select {
				case <-held:
					if run.ctx.Err() == nil {
						m.Start()
					}
				case <-run.ctx.Done():
				}
			}()
		}
		return m.Status(), nil
	}
	m.Start()
	werr := m.WaitReady(ctx)
	var errs []error
	if s.Skills != nil {
		// From here on events load the prompts of servers that become
		// ready; this loads those ready now.
		s.mu.Lock()
		run.started = true
		s.mu.Unlock()
		errs = append(errs, s.addPrompts(ctx, m, run)...)
	}
	st := m.Status()
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

// Hold keeps the servers that Start starts in the background from
// starting until Release: a session gets ready before dozens of server
// processes compete with it for the machine.
func (s *MCPServers) Hold() {
	s.mu.Lock()
	if s.held == nil {
		s.held = make(chan struct{})
	}
	s.mu.Unlock()
}

// Release starts the servers Hold kept back, and any later ones at once.
func (s *MCPServers) Release() {
	s.mu.Lock()
	held := s.held
	s.mu.Unlock()
	if held != nil {
		s.released.Do(func() { close(held) })
	}
}

// WaitReady waits, for every extension's servers at once, until each has
// finished its first connection attempt, loads the prompts of those ready,
// and returns an error for each that failed. The error is ctx's when it
// ends first.
func (s *MCPServers) WaitReady(ctx context.Context) []error {
	s.mu.Lock()
	type started struct {
		m   *mcp.Manager
		run *serverRun
	}
	var all []started
	for _, m := range s.mgrs {
		all = append(all, started{m, s.runs[m]})
	}
	s.mu.Unlock()
	errs := make([][]error, len(all))
	var wg sync.WaitGroup
	for i, st := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := st.m.WaitReady(ctx); err != nil {
				errs[i] = append(errs[i], fmt.Errorf("extension %s: waiting for MCP servers: %w", st.run.ext, err))
				return
			}
			if s.Skills != nil && st.run != nil {
				errs[i] = append(errs[i], s.addPrompts(ctx, st.m, st.run)...)
			}
			for _, x := range st.m.Status() {
				if x.State == mcp.StateFailed {
					errs[i] = append(errs[i], fmt.Errorf("extension %s: MCP server %s failed: %s", st.run.ext, x.Name, x.Error))
				}
			}
		}()
	}
	wg.Wait()
	var out []error
	for _, e := range errs {
		out = append(out, e...)
	}
	return out
}

// Stop implements Servers.
func (s *MCPServers) Stop(ext string) error {
	s.mu.Lock()
	m := s.mgrs[ext]
	delete(s.mgrs, ext)
	run := s.runs[m]
	delete(s.runs, m)
	s.mu.Unlock()
	if m == nil {
		return nil
	}
	if run != nil {
		run.cancel()
		run.wg.Wait()
		s.mu.Lock()
		for srv := range run.added {
			s.dropPrompts(run, srv)
		}
		s.mu.Unlock()
	}
	return m.Close()
}

// promptEvent follows a server's prompts after Start: they join Skills
// when it is ready (again) and leave when it stops or fails.
func (s *MCPServers) promptEvent(m *mcp.Manager, run *serverRun, ev mcp.Event) {
	if s.Skills == nil || m == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs[m] != run || !run.started || run.ctx.Err() != nil {
		return
	}
	if ev.Status.State != mcp.StateReady {
		s.dropPrompts(run, ev.Server)
		return
	}
	run.wg.Add(1)
	go func() {
		defer run.wg.Done()
		s.addPrompts(run.ctx, m, run)
	}()
}

// addPrompts adds the prompts of m's ready servers to Skills and returns
// what failed. A Manager stopped meanwhile adds nothing.
func (s *MCPServers) addPrompts(ctx context.Context, m *mcp.Manager, run *serverRun) []error {
	list, errs := m.Skills(ctx)
	var servers []string
	for _, st := range m.Status() {
		servers = append(servers, st.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs[m] != run || run.ctx.Err() != nil {
		return errs
	}
	for _, sk := range list {
		for _, srv := range servers {
			name, ok := strings.CutPrefix(sk.Name, srv+":")
			if !ok || name == "" {
				continue
			}
			name = skills.CommandName(name) // "git:commit" is /git-commit
			if err := s.Skills.Add(skills.Skill{Name: name, Description: sk.Description, Prompt: sk.Prompt,
				Source: skills.SourceMCP, Extension: run.ext}); err != nil {
				errs = append(errs, fmt.Errorf("MCP server %s: prompt %s: %w", srv, name, err))
				break
			}
			if !slices.Contains(run.added[srv], name) {
				run.added[srv] = append(run.added[srv], name)
			}
			break
		}
	}
	return errs
}

// dropPrompts takes the prompt skills of server srv out of Skills and
// leaves the extension's other skills. Called with s.mu held.
func (s *MCPServers) dropPrompts(run *serverRun, srv string) {
	names := run.added[srv]
	delete(run.added, srv)
	if s.Skills == nil || len(names) == 0 {
		return
	}
	var keep []skills.Skill
	for _, e := range s.Skills.List() {
		if e.Extension == run.ext && (e.Source != skills.SourceMCP || !slices.Contains(names, e.Skill.Name)) {
			keep = append(keep, e.Skill)
		}
	}
	s.Skills.RemoveExtension(run.ext)
	for _, sk := range keep {
		_ = s.Skills.Add(sk)
	}
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
