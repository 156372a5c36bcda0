package mcp

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/schema"
)

// tenEverything is ten server-everything processes over stdio.
func tenEverything(b *testing.B) []Spec {
	var specs []Spec
	for i := 0; i < 10; i++ {
		specs = append(specs, everythingStdio(b, fmt.Sprintf("ev%d", i)))
	}
	return specs
}

func connectAll(b *testing.B, specs []Spec, opts Options) {
	m := New(specs, opts)
	m.Start()
	if err := m.WaitReady(context.Background()); err != nil {
		b.Fatal(err)
	}
	for _, s := range m.Status() {
		if s.State != StateReady {
			b.Fatalf("%+v", s)
		}
	}
	b.StopTimer()
	m.Close()
	b.StartTimer()
}

// BenchmarkConnectTenParallel starts ten server-everything processes at once.
func BenchmarkConnectTenParallel(b *testing.B) {
	specs := tenEverything(b)
	opts := Options{LogDir: b.TempDir()}
	for i := 0; i < b.N; i++ {
		connectAll(b, specs, opts)
	}
}

// BenchmarkConnectTenSequential starts the same ten one after another.
func BenchmarkConnectTenSequential(b *testing.B) {
	specs := tenEverything(b)
	opts := Options{LogDir: b.TempDir()}
	for i := 0; i < b.N; i++ {
		for _, s := range specs {
			connectAll(b, []Spec{s}, opts)
		}
	}
}

// BenchmarkCallClient is one tools/call round trip through the Manager and
// mcp-go, including the line filter, to the Go test server.
func BenchmarkCallClient(b *testing.B) {
	m := New([]Spec{faultSpec(b, "f", "normal")}, Options{LogDir: b.TempDir()})
	m.Start()
	defer m.Close()
	if err := m.WaitReady(context.Background()); err != nil {
		b.Fatal(err)
	}
	key := ToolKey{"f", "echo"}
	args := []byte(`{"text":"ping"}`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := m.Call(context.Background(), key, args, nil)
		if err != nil || res.ForModel != "ping" {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkCallRaw is the same round trip written by hand on the pipe: a
// line out, a line back, no client.
func BenchmarkCallRaw(b *testing.B) {
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), faultEnv+"=normal")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	in := bufio.NewReader(stdout)
	roundTrip := func(line string) string {
		if _, err := stdin.Write([]byte(line + "\n")); err != nil {
			b.Fatal(err)
		}
		resp, err := in.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		return resp
	}
	roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp := roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ping"}}}`, i+1))
		if !strings.Contains(resp, `"ping"`) {
			b.Fatal(resp)
		}
	}
}

// BenchmarkConnectSandboxed starts one server-everything over stdio
// (start, initialize, tools/list) without and with the default sandbox.
func BenchmarkConnectSandboxed(b *testing.B) {
	if s := sandbox.Probe(); !s.Available() {
		b.Skip(s.Describe())
	}
	ws, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	env := sandbox.Env{Workspace: ws, Home: home, OllmHome: filepath.Join(home, ".ollm"), Getenv: os.Getenv}
	spec := everythingStdio(b, "ev")
	for _, c := range []struct {
		name string
		fn   func(Spec) (sandbox.Policy, error)
	}{{"unsandboxed", nil}, {"workspace-write", SandboxPolicy(schema.Sandbox{}, env)}} {
		b.Run(c.name, func(b *testing.B) {
			opts := Options{LogDir: b.TempDir(), Sandbox: c.fn}
			for i := 0; i < b.N; i++ {
				connectAll(b, []Spec{spec}, opts)
			}
		})
	}
}

// rawEverything drives server-everything by hand: initialize,
// initialized, then the last request, each read up to its answer; then
// kill and reap.
func rawEverything(b *testing.B, last string) {
	cmd := exec.Command("node", serverScript(b, "server-everything", "index.js"), "stdio")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	in := bufio.NewReader(stdout)
	await := func(id string) {
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.Contains(line, `"id":`+id) {
				return
			}
		}
	}
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n"))
	await("0")
	stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + last + "\n"))
	await("1")
	cmd.Process.Kill()
	cmd.Wait()
}

// pairedRun runs raw and manager once each, raw first in even
// iterations and second in odd ones, so neither always meets the machine
// first.
func pairedRun(i int, raw, manager func() time.Duration) (r, o time.Duration) {
	if i%2 == 0 {
		r = raw()
		return r, manager()
	}
	o = manager()
	return raw(), o
}

func medianOf(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// BenchmarkListTenPaired is what `ollm mcp list` asks of the Manager - ten
// stdio server-everything started, initialized, tools listed (and
// recorded in the tool cache), stopped the one-shot way (25 ms grace, the
// protocol cache warm) - against ten raw sessions (initialize, tools/list,
// kill) in the same iteration.
func BenchmarkListTenPaired(b *testing.B) {
	specs := tenEverything(b)
	opts := Options{LogDir: b.TempDir(), ProtocolCache: filepath.Join(b.TempDir(), "p.json"), StopGrace: 25 * time.Millisecond, Snapshot: true,
		ToolCache: filepath.Join(b.TempDir(), "mcp-tools")}
	manager := func() time.Duration {
		start := time.Now()
		m := New(specs, opts)
		m.Start()
		if err := m.WaitReady(context.Background()); err != nil {
			b.Fatal(err)
		}
		for _, s := range m.Status() {
			if s.State != StateReady {
				b.Fatalf("%+v", s)
			}
		}
		m.Close()
		return time.Since(start)
	}
	raw := func() time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); rawEverything(b, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`) }()
		}
		wg.Wait()
		return time.Since(start)
	}
	manager() // warm the protocol cache, as after the first use
	var floor, diff []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, o := pairedRun(i, raw, manager)
		floor = append(floor, float64(r.Microseconds()))
		diff = append(diff, float64((o - r).Microseconds()))
	}
	b.ReportMetric(medianOf(diff), "median-overhead-µs")
	b.ReportMetric(medianOf(floor), "median-µs")
}

// BenchmarkCallOnePaired is what `ollm mcp call` asks of the Manager - one
// server-everything started, initialized, its tools taken from the tool
// cache (warm, as after the first call), echo called, stopped - against
// one raw session (initialize, tools/call, kill).
func BenchmarkCallOnePaired(b *testing.B) {
	spec := everythingStdio(b, "ev")
	opts := Options{LogDir: b.TempDir(), ProtocolCache: filepath.Join(b.TempDir(), "p.json"), StopGrace: 25 * time.Millisecond, Snapshot: true,
		ToolCache: filepath.Join(b.TempDir(), "mcp-tools"), UseToolCache: true}
	manager := func() time.Duration {
		start := time.Now()
		m := New([]Spec{spec}, opts)
		m.Start()
		if err := m.WaitReady(context.Background()); err != nil {
			b.Fatal(err)
		}
		res, err := m.Call(context.Background(), ToolKey{"ev", "echo"}, []byte(`{"message":"hi"}`), nil)
		if err != nil || res.Error != nil {
			b.Fatalf("%+v %v", res, err)
		}
		m.Close()
		return time.Since(start)
	}
	raw := func() time.Duration {
		start := time.Now()
		rawEverything(b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
		return time.Since(start)
	}
	manager()
	var floor, diff []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, o := pairedRun(i, raw, manager)
		floor = append(floor, float64(r.Microseconds()))
		diff = append(diff, float64((o - r).Microseconds()))
	}
	b.ReportMetric(medianOf(diff), "median-overhead-µs")
	b.ReportMetric(medianOf(floor), "median-µs")
}
