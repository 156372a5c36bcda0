package hooks

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/schema"
)

// medianOf runs fn b.N times and reports the median duration, the figure
// the targets are set on (means are skewed by process-start outliers).
func medianOf(b *testing.B, fn func()) {
	b.Helper()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t := time.Now()
		fn()
		ds = append(ds, time.Since(t))
	}
	b.StopTimer()
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "median-µs")
}

var benchData = map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls -la"}}

// BenchmarkRunnerOverhead compares one hook run through the engine with a
// bare exec.Command of the same script fed the same input.
func BenchmarkRunnerOverhead(b *testing.B) {
	path := script(b, "bench.sh")
	h := &Hook{Name: "bench", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Command: path}}
	input, _ := BuildInput(h, BeforeTool, benchData, nil, Session{ID: "s"}, time.Now(), 0)
	b.Run("bare-exec", func(b *testing.B) {
		medianOf(b, func() {
			cmd := exec.Command(path)
			cmd.Stdin = bytes.NewReader(input)
			if _, err := cmd.Output(); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("runProcess", func(b *testing.B) {
		medianOf(b, func() {
			out := runProcess(context.Background(), runSpec{Path: path, Stdin: input, Timeout: time.Minute, Grace: time.Second, MaxStdout: DefaultMaxOutput})
			if out.ExitCode != 0 {
				b.Fatal(out)
			}
		})
	})
	b.Run("emit", func(b *testing.B) {
		e := newEngine(b, Options{}, h)
		medianOf(b, func() {
			out, _ := e.Emit(context.Background(), BeforeTool, benchData)
			if out.Results[0].Failure != "" {
				b.Fatal(out.Results[0])
			}
		})
	})
}

// BenchmarkRunnerOverheadPaired alternates a bare exec.Command and an
// Emit of the same hook in each iteration and reports the median of the
// difference, which stays readable on a loaded machine.
func BenchmarkRunnerOverheadPaired(b *testing.B) {
	path := script(b, "bench.sh")
	h := &Hook{Name: "bench", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Command: path}}
	input, _ := BuildInput(h, BeforeTool, benchData, nil, Session{ID: "s"}, time.Now(), 0)
	e := newEngine(b, Options{}, h)
	diffs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		cmd := exec.Command(path)
		cmd.Stdin = bytes.NewReader(input)
		if _, err := cmd.Output(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if out, _ := e.Emit(context.Background(), BeforeTool, benchData); out.Results[0].Failure != "" {
			b.Fatal(out.Results[0])
		}
		diffs = append(diffs, time.Since(t1)-t1.Sub(t0))
	}
	b.StopTimer()
	slices.Sort(diffs)
	b.ReportMetric(float64(diffs[len(diffs)/2].Microseconds()), "median-overhead-µs")
}

// BenchmarkPersistentRoundTrip is one event through a persistent hook.
func BenchmarkPersistentRoundTrip(b *testing.B) {
	h := &Hook{Name: "p", Event: BeforeTool, Scope: schema.ScopeUser,
		Def: schema.Hook{Command: script(b, "bench_persistent.py"), Persistent: true}}
	e := newEngine(b, Options{}, h)
	if out, _ := e.Emit(context.Background(), BeforeTool, benchData); out.Results[0].Failure != "" {
		b.Fatal(out.Results[0])
	}
	medianOf(b, func() {
		out, _ := e.Emit(context.Background(), BeforeTool, benchData)
		if out.Results[0].Failure != "" {
			b.Fatal(out.Results[0])
		}
	})
}

// BenchmarkTenHooks is ten hooks on one event, one process each, and the
// same ten as persistent hooks.
func BenchmarkTenHooks(b *testing.B) {
	for _, persistent := range []bool{false, true} {
		name, file := "process-each", "bench.sh"
		if persistent {
			name, file = "persistent", "bench_persistent.py"
		}
		b.Run(name, func(b *testing.B) {
			var hs []*Hook
			for i := range 10 {
				hs = append(hs, &Hook{Name: string(rune('a' + i)), Event: BeforeTool, Scope: schema.ScopeUser,
					Def: schema.Hook{Command: script(b, file), Persistent: persistent}})
			}
			e := newEngine(b, Options{}, hs...)
			e.Emit(context.Background(), BeforeTool, benchData)
			medianOf(b, func() {
				out, _ := e.Emit(context.Background(), BeforeTool, benchData)
				if len(out.Results) != 10 || out.Results[9].Failure != "" {
					b.Fatal(out.Results)
				}
			})
		})
	}
}

// BenchmarkSandboxedHook is one hook run through the engine unsandboxed
// and sandboxed (workspace-write with network, the hooks' default, and
// without network, which adds a network namespace), the policy resolved
// at each start as the CLI's Options.Sandbox does, in the real home. The
// paired variant alternates an unsandboxed and a sandboxed Emit and
// reports the median difference.
func BenchmarkSandboxedHook(b *testing.B) {
	if s := sandbox.Probe(); !s.Available() {
		b.Skip(s.Describe())
	}
	ws, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	env := sandbox.Env{Workspace: ws, Home: home, OllmHome: filepath.Join(home, ".ollm"), Getenv: os.Getenv}
	off := false
	h := &Hook{Name: "bench", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Command: script(b, "bench.sh")}}
	for _, c := range []struct {
		name string
		fn   func(*Hook) (sandbox.Policy, error)
	}{
		{"unsandboxed", nil},
		{"workspace-write-network", SandboxPolicy(schema.Sandbox{}, env)},
		{"workspace-write-no-network", SandboxPolicy(schema.Sandbox{Network: &off}, env)},
		{"read-only-network", SandboxPolicy(schema.Sandbox{Preset: schema.SandboxReadOnly}, env)},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := newEngine(b, Options{Sandbox: c.fn}, h)
			medianOf(b, func() {
				out, _ := e.Emit(context.Background(), BeforeTool, benchData)
				if out.Results[0].Failure != "" {
					b.Fatal(out.Results[0])
				}
			})
		})
	}
	// The CPU figures hold on a busy machine, where the wall time is
	// mostly waiting for a CPU: ollm's own (the resolution, the spawn) and
	// the hook process's (the policy steps before its exec, and its
	// programs slower under Landlock), each sandboxed less unsandboxed.
	b.Run("paired-overhead", func(b *testing.B) {
		bare := newEngine(b, Options{}, h)
		boxed := newEngine(b, Options{Sandbox: SandboxPolicy(schema.Sandbox{}, env)}, h)
		diffs := make([]time.Duration, 0, b.N)
		var self, child time.Duration
		b.ResetTimer()
		for range b.N {
			s0, c0 := cpuTimes()
			t0 := time.Now()
			bare.Emit(context.Background(), BeforeTool, benchData)
			t1 := time.Now()
			s1, c1 := cpuTimes()
			if out, _ := boxed.Emit(context.Background(), BeforeTool, benchData); out.Results[0].Failure != "" {
				b.Fatal(out.Results[0])
			}
			diffs = append(diffs, time.Since(t1)-t1.Sub(t0))
			s2, c2 := cpuTimes()
			self += (s2 - s1) - (s1 - s0)
			child += (c2 - c1) - (c1 - c0)
		}
		b.StopTimer()
		slices.Sort(diffs)
		b.ReportMetric(float64(diffs[len(diffs)/2].Microseconds()), "median-overhead-µs")
		b.ReportMetric(float64(self.Microseconds())/float64(b.N), "ollm-cpu-overhead-µs")
		b.ReportMetric(float64(child.Microseconds())/float64(b.N), "hook-cpu-overhead-µs")
	})
	b.Run("resolve-only", func(b *testing.B) {
		fn := SandboxPolicy(schema.Sandbox{}, env)
		medianOf(b, func() { fn(h) })
	})
}

// cpuTimes are the CPU times (user and system) of this process and of
// its reaped children so far.
func cpuTimes() (self, children time.Duration) {
	var s, c syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	return time.Duration(s.Utime.Nano() + s.Stime.Nano()), time.Duration(c.Utime.Nano() + c.Stime.Nano())
}
