package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// timedProvider adds up the time spent in Chat: model time.
type timedProvider struct {
	llm.Provider
	ns atomic.Int64
}

func (p *timedProvider) Chat(ctx context.Context, r llm.Request, on func(llm.Event)) (llm.Response, error) {
	t0 := time.Now()
	defer func() { p.ns.Add(int64(time.Since(t0))) }()
	return p.Provider.Chat(ctx, r, on)
}

// timedTools adds up the time spent executing calls: tool time.
type timedTools struct {
	Tools
	ns atomic.Int64
}

func (t *timedTools) Get(name string) (tool.Tool, bool) {
	x, ok := t.Tools.Get(name)
	if !ok {
		return nil, false
	}
	return timedTool{x, &t.ns}, true
}

type timedTool struct {
	tool.Tool
	ns *atomic.Int64
}

func (t timedTool) Build(p json.RawMessage) (tool.Invocation, error) {
	inv, err := t.Tool.Build(p)
	if err != nil {
		return nil, err
	}
	return timedInv{inv, t.ns}, nil
}

type timedInv struct {
	tool.Invocation
	ns *atomic.Int64
}

func (i timedInv) Execute(ctx context.Context, out func(tool.Chunk)) (tool.Result, error) {
	t0 := time.Now()
	defer func() { i.ns.Add(int64(time.Since(t0))) }()
	return i.Invocation.Execute(ctx, out)
}

// BenchmarkTurnOverhead measures what the loop adds to a turn beyond the
// model and the tool: five hooks (one on each per-turn event:
// before_tool_selection, before_model, after_model, before_tool,
// after_tool) and five MCP servers (server-everything over stdio, 5 x ~13
// tools offered), one MCP tool call per prompt. Each iteration is one
// prompt of two turns (a tool call, then the answer); the metric
// overhead-ms/turn is (wall - model - tool) / 2, and p50/p90 are over the
// iterations.
func BenchmarkTurnOverhead(b *testing.B) {
	var specs []mcp.Spec
	for i := range 5 {
		s := everythingSpec(b, fmt.Sprintf("s%d", i+1))
		specs = append(specs, s)
	}
	m := mcp.New(specs, mcp.Options{LogDir: b.TempDir()})
	m.Start()
	b.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := m.WaitReady(ctx); err != nil {
		b.Fatal(err)
	}
	var echo string
	for _, t := range m.Tools() {
		if t.Name() == "s1:echo" || t.Name() == "s1__echo" || (echo == "" && len(t.Name()) > 4 && t.Name()[len(t.Name())-4:] == "echo") {
			echo = t.Name()
		}
	}
	if echo == "" {
		b.Fatal("no echo tool")
	}
	events := []hooks.Event{hooks.BeforeToolSelection, hooks.BeforeModel, hooks.AfterModel, hooks.BeforeTool, hooks.AfterTool}
	runs := hookRunsPerPrompt(b, m, echo, events)
	for _, mode := range []string{"no-hooks", "persistent-hooks", "process-hooks", "process-hooks-sandboxed"} {
		persistent, file := mode == "persistent-hooks", "ok.sh"
		if persistent {
			file = "persistent.py"
		}
		process := strings.HasPrefix(mode, "process-hooks")
		b.Run(mode, func(b *testing.B) {
			var hs []*hooks.Hook
			for _, ev := range events {
				if mode == "no-hooks" {
					break
				}
				h := hook(b, "h-"+string(ev), ev, file)
				h.Def.Persistent = persistent
				hs = append(hs, h)
			}
			cwd := b.TempDir()
			eng := engine(b, "bench", cwd, hs...)
			if mode == "process-hooks-sandboxed" {
				// The hooks' default sandbox, as a session gives it.
				eng = hooks.New(hooks.NewRegistry(hs...), hooks.Options{Enabled: true, LogDir: b.TempDir(),
					Session: hooks.Session{ID: "bench", Cwd: cwd}, AllowEnv: []string{"EVENT_LOG", "SYSTEM_MESSAGE"},
					Sandbox: hooks.SandboxPolicy(schema.Sandbox{}, sandbox.Env{Workspace: cwd, Home: os.Getenv("HOME"), Getenv: os.Getenv})})
				b.Cleanup(func() { _ = eng.Close() })
			}
			okPath := script(b, "ok.sh")
			srv := llmtest.NewOllama(b)
			prov, err := llm.New(srv.ModelConfig(), llm.Config{})
			if err != nil {
				b.Fatal(err)
			}
			tp := &timedProvider{Provider: prov}
			te := &timedEmitter{e: eng}
			tt := &timedTools{Tools: tool.NewRegistry(m.Tools()...)}
			pol := mustPolicy(b, "allow", schema.PolicyRule{Tool: "*:*", Action: "allow"})
			var over, programs, net, emits []float64
			b.ResetTimer()
			for range b.N {
				srv.Reply(llmtest.ToolCall(echo, map[string]any{"message": "hi"}))
				srv.Reply(llmtest.Text("done"))
				var hk Emitter = eng
				if process {
					hk = te
				}
				s, err := New(Config{Provider: tp, Model: llmtest.DefaultModel, Tools: tt, Hooks: hk, Policy: pol,
					SessionID: "bench", ContextWindow: 100000})
				if err != nil {
					b.Fatal(err)
				}
				tp.ns.Store(0)
				tt.ns.Store(0)
				te.ns.Store(0)
				t0 := time.Now()
				if _, err := s.Run(context.Background(), "echo hi"); err != nil {
					b.Fatal(err)
				}
				wall := time.Since(t0)
				o := float64(wall-time.Duration(tp.ns.Load())-time.Duration(tt.ns.Load())) / 2 / 1e6
				over = append(over, o)
				if process {
					// The hook program's own time, run bare as often.
					h0 := time.Now()
					for range runs {
						c := exec.Command(okPath)
						c.Stdin = strings.NewReader("{}")
						if err := c.Run(); err != nil {
							b.Fatal(err)
						}
					}
					own := float64(time.Since(h0)) / 2 / 1e6
					programs = append(programs, own)
					net = append(net, o-own)
					emits = append(emits, float64(te.ns.Load())/2/1e6-own)
				}
			}
			b.StopTimer()
			sort.Float64s(over)
			b.ReportMetric(over[len(over)/2], "overhead-ms/turn")
			b.ReportMetric(over[len(over)*9/10], "p90-overhead-ms/turn")
			if process {
				sort.Float64s(programs)
				sort.Float64s(net)
				b.ReportMetric(programs[len(programs)/2], "hook-programs-ms/turn")
				b.ReportMetric(net[len(net)/2], "net-overhead-ms/turn")
				sort.Float64s(emits)
				b.ReportMetric(emits[len(emits)/2], "emit-minus-programs-ms/turn")
			}
		})
	}
}

// BenchmarkTurnSandboxPaired alternates one prompt with the five process
// hooks unsandboxed and one with the hooks' default sandbox (as a session
// gives it), on the same MCP servers and model, and reports the median of
// the per-prompt differences per turn: what the sandbox adds to a turn,
// without the machine's drift between two separate runs. The CPU figures
// split it into ollm's own (resolution, spawn) and the hook processes'
// (the launcher's steps, their programs under Landlock).
func BenchmarkTurnSandboxPaired(b *testing.B) {
	m := mcp.New([]mcp.Spec{everythingSpec(b, "s1")}, mcp.Options{LogDir: b.TempDir()})
	m.Start()
	b.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := m.WaitReady(ctx); err != nil {
		b.Fatal(err)
	}
	var echo string
	for _, t := range m.Tools() {
		if strings.HasSuffix(t.Name(), "echo") {
			echo = t.Name()
		}
	}
	events := []hooks.Event{hooks.BeforeToolSelection, hooks.BeforeModel, hooks.AfterModel, hooks.BeforeTool, hooks.AfterTool}
	var hs []*hooks.Hook
	for _, ev := range events {
		hs = append(hs, hook(b, "h-"+string(ev), ev, "ok.sh"))
	}
	cwd := b.TempDir()
	bare := engine(b, "bench", cwd, hs...)
	boxed := hooks.New(hooks.NewRegistry(hs...), hooks.Options{Enabled: true, LogDir: b.TempDir(),
		Session: hooks.Session{ID: "bench", Cwd: cwd}, AllowEnv: []string{"EVENT_LOG", "SYSTEM_MESSAGE"},
		Sandbox: hooks.SandboxPolicy(schema.Sandbox{}, sandbox.Env{Workspace: cwd, Home: os.Getenv("HOME"), Getenv: os.Getenv})})
	b.Cleanup(func() { _ = boxed.Close() })
	srv := llmtest.NewOllama(b)
	prov, err := llm.New(srv.ModelConfig(), llm.Config{})
	if err != nil {
		b.Fatal(err)
	}
	reg := tool.NewRegistry(m.Tools()...)
	pol := mustPolicy(b, "allow", schema.PolicyRule{Tool: "*:*", Action: "allow"})
	prompt := func(eng *hooks.Engine) time.Duration {
		srv.Reply(llmtest.ToolCall(echo, map[string]any{"message": "hi"}))
		srv.Reply(llmtest.Text("done"))
		s, err := New(Config{Provider: prov, Model: llmtest.DefaultModel, Tools: reg, Hooks: eng, Policy: pol,
			SessionID: "bench", ContextWindow: 100000})
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if _, err := s.Run(context.Background(), "echo hi"); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	diffs := make([]float64, 0, b.N)
	var self, child time.Duration
	b.ResetTimer()
	for range b.N {
		s0, c0 := cpuTimes()
		d0 := prompt(bare)
		s1, c1 := cpuTimes()
		d1 := prompt(boxed)
		s2, c2 := cpuTimes()
		diffs = append(diffs, float64(d1-d0)/2/1e6)
		self += (s2 - s1) - (s1 - s0)
		child += (c2 - c1) - (c1 - c0)
	}
	b.StopTimer()
	sort.Float64s(diffs)
	b.ReportMetric(diffs[len(diffs)/2], "sandbox-ms/turn")
	b.ReportMetric(float64(self.Microseconds())/float64(b.N)/2/1000, "ollm-cpu-ms/turn")
	b.ReportMetric(float64(child.Microseconds())/float64(b.N)/2/1000, "hook-cpu-ms/turn")
}

// cpuTimes are the CPU times (user and system) of this process and of
// its reaped children so far.
func cpuTimes() (self, children time.Duration) {
	var s, c syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	return time.Duration(s.Utime.Nano() + s.Stime.Nano()), time.Duration(c.Utime.Nano() + c.Stime.Nano())
}

type timedEmitter struct {
	e  Emitter
	ns atomic.Int64
}

func (t *timedEmitter) Emit(ctx context.Context, ev hooks.Event, data map[string]any) (hooks.Outcome, error) {
	t0 := time.Now()
	defer func() { t.ns.Add(int64(time.Since(t0))) }()
	return t.e.Emit(ctx, ev, data)
}

// hookRunsPerPrompt counts the hook processes one benchmark prompt runs
// (a hook on each of events, one tool call): log.sh appends each input
// to $EVENT_LOG.
func hookRunsPerPrompt(b *testing.B, m *mcp.Manager, echo string, events []hooks.Event) int {
	log := filepath.Join(b.TempDir(), "events.jsonl")
	b.Setenv("EVENT_LOG", log)
	var hs []*hooks.Hook
	for _, ev := range events {
		hs = append(hs, hook(b, "count-"+string(ev), ev, "log.sh"))
	}
	srv := llmtest.NewOllama(b)
	prov, err := llm.New(srv.ModelConfig(), llm.Config{})
	if err != nil {
		b.Fatal(err)
	}
	srv.Reply(llmtest.ToolCall(echo, map[string]any{"message": "hi"}))
	srv.Reply(llmtest.Text("done"))
	s, err := New(Config{Provider: prov, Model: llmtest.DefaultModel, Tools: tool.NewRegistry(m.Tools()...), Hooks: engine(b, "count", b.TempDir(), hs...),
		Policy: mustPolicy(b, "allow", schema.PolicyRule{Tool: "*:*", Action: "allow"}), SessionID: "count", ContextWindow: 100000})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Run(context.Background(), "echo hi"); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		b.Fatal(err)
	}
	n := strings.Count(string(data), "\n")
	if n == 0 {
		b.Fatal("no hook ran")
	}
	return n
}

func everythingSpec(b testing.TB, name string) mcp.Spec {
	m := everythingPath(b)
	return mcp.Spec{Name: name, Config: schema.MCPServer{Command: "node", Args: []string{m, "stdio"}, Enabled: true}}
}
