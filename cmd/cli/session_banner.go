package cli

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/ollm/ollm/cmd/cli/tui"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/schema"
)

// stderrLines takes what ollm writes to stderr during an interactive
// session: the full-screen view would hide it (and be garbled by it).
// Until the screen exists the lines are kept for the banner (a profile
// that does not apply, and the generation that runs instead); after, each
// line becomes a notice in the conversation.
type stderrLines struct {
	mu      sync.Mutex
	partial bytes.Buffer
	kept    []string
	show    func(string)
}

func (s *stderrLines) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial.Write(p)
	for {
		b := s.partial.Bytes()
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(b[:i]))
		s.partial.Next(i + 1)
		if line == "" {
			continue
		}
		if s.show != nil {
			s.show(line)
		} else {
			s.kept = append(s.kept, line)
		}
	}
	return len(p), nil
}

// attach sends the lines from now on to show and returns those kept.
func (s *stderrLines) attach(show func(string)) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.show = show
	k := s.kept
	s.kept = nil
	return k
}

// captureStderr points f's stderr at an stderrLines until restore.
func captureStderr(f *Factory) (*stderrLines, func()) {
	s := &stderrLines{}
	prev := f.IO.ErrOut
	f.IO.ErrOut = s
	return s, func() {
		f.IO.ErrOut = prev
		if rest := s.attach(nil); len(rest) > 0 {
			for _, l := range rest {
				fmt.Fprintln(prev, l)
			}
		}
	}
}

var _ io.Writer = (*stderrLines)(nil)

// sessionBanner is the first screen's summary of rt. problems are the
// lines written before the screen existed and the runtime's warnings.
func sessionBanner(rt *runtime.Runtime, gen int, pinned bool, problems []string) tui.Banner {
	model, p := rt.Model()
	b := tui.Banner{Workspace: rt.Workspace.Root, Model: model.Name, Provider: model.Provider, Generation: gen, Pinned: pinned}
	if b.Provider == "" {
		b.Provider = "ollama"
	}
	if e, ok := llm.Unwrap(p).(interface{ Endpoint() string }); ok {
		b.Endpoint = e.Endpoint()
	}
	held := rt.Held()
	switch {
	case held.Unapprovable != "":
		b.Trust = "cannot be approved: " + held.Unapprovable
	case held.Approved:
		b.Trust = "approved"
	case held.Gated && (len(held.Held) > 0 || len(held.HeldServers) > 0 || len(held.HeldExtensions) > 0):
		b.Trust = "not approved"
		if n := len(held.HeldServers); n > 0 {
			b.Held = append(b.Held, "MCP servers "+strings.Join(held.HeldServers, ", "))
		}
		if n := len(held.HeldExtensions); n > 0 {
			b.Held = append(b.Held, "extensions "+strings.Join(held.HeldExtensions, ", "))
		}
		if n := len(held.Held); n > 0 {
			var fields []string
			for i, h := range held.Held {
				if i == 3 {
					fields = append(fields, fmt.Sprintf("%d more", n-3))
					break
				}
				fields = append(fields, h.Field)
			}
			b.Held = append(b.Held, strings.Join(fields, ", "))
		}
	case held.Digest == "":
		b.Trust = "nothing to approve (the workspace brings no settings)"
	default:
		b.Trust = "not approved; it widens nothing"
	}
	if rt.Ext != nil {
		b.Extensions = len(rt.Ext.List())
	}
	b.Servers = len(rt.MCPStatus()) + len(rt.PendingServers())
	if e := rt.Hooks(); e != nil && e.Registry() != nil {
		b.Hooks = len(e.Registry().All())
	}
	if rt.Skills != nil {
		b.Skills = len(rt.Skills.List())
	}
	for _, l := range problems {
		b.Problems = append(b.Problems, strings.TrimPrefix(l, "ollm: "))
	}
	return b
}

// checkModel asks the provider whether the session's model is there.
func checkModel(ctx context.Context, rt *runtime.Runtime) tui.ModelChecked {
	model, p := rt.Model()
	c := tui.ModelChecked{Model: model.Name}
	_, c.CanPull = p.(llm.Puller)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	list, err := llm.InstalledModels(ctx, p)
	if err != nil {
		c.Err = err.Error()
		return c
	}
	c.Installed = llm.HasModel(list, model.Name)
	return c
}

// sessionModels is /model's list and pull on the runtime's provider.
type sessionModels struct{ rt *runtime.Runtime }

func (s sessionModels) List(ctx context.Context) ([]llm.InstalledModel, error) {
	_, p := s.rt.Model()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return llm.InstalledModels(ctx, p)
}

func (s sessionModels) CanPull() bool {
	_, p := s.rt.Model()
	_, ok := p.(llm.Puller)
	return ok
}

func (s sessionModels) Pull(ctx context.Context, name string, progress func(llm.PullProgress)) error {
	_, p := s.rt.Model()
	pl, ok := p.(llm.Puller)
	if !ok {
		return fmt.Errorf("%s cannot download models: install %s there", s.Where(), name)
	}
	return pl.Pull(ctx, name, progress)
}

func (s sessionModels) Where() string {
	model, p := s.rt.Model()
	where := model.Provider
	if where == "" || where == "ollama" {
		where = "Ollama"
	}
	if e, ok := llm.Unwrap(p).(interface{ Endpoint() string }); ok {
		where += " at " + e.Endpoint()
	}
	return where
}

// sandboxLabel is the shell's sandbox for the status line, as a tool
// card names it ("workspace-write, no network").
func sandboxLabel(g *schema.Resolved) string {
	if g == nil {
		return ""
	}
	s, def := g.Profile.Sandbox.Shell, sandbox.ShellDefault
	preset := cmp.Or(s.Preset, def.Preset, schema.SandboxWorkspaceWrite)
	if preset == schema.SandboxOff {
		return "off"
	}
	if sp := sandbox.Probe(); !sp.Available() {
		return "unavailable"
	}
	network := s.Network
	if network == nil {
		network = def.Network
	}
	if network != nil && !*network {
		return preset + ", no network"
	}
	return preset
}
