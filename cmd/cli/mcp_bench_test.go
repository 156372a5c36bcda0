package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The MCP command benchmarks run the real ollm binary against real
// server-everything processes and, in the same iteration, the raw floor:
// the same processes driven by hand with the least the protocol needs,
// then killed. The figures are the medians of the floor and of the
// per-iteration difference, which stays readable while node's start-up
// varies by more than the difference.

// buildOllm builds the ollm binary once per benchmark.
func buildOllm(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "ollm")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/ollm")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// benchHome is an OLLM_HOME whose user profile declares n server-everything
// stdio servers, ev0 ... ev<n-1>, and a workspace directory to run in;
// extra is added to the profile.
func benchHome(b *testing.B, n int, extra string) (env []string, dir string) {
	root := b.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	for _, d := range []string{home, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	var cue strings.Builder
	cue.WriteString("mcp: servers: {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&cue, "\tev%d: {command: \"node\", args: [%q, \"stdio\"]}\n", i, everythingScript(b))
	}
	cue.WriteString("}\n" + extra)
	if err := os.WriteFile(filepath.Join(home, "profile.cue"), []byte(cue.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	env = append(os.Environ(), "OLLM_HOME="+home, "CI=true")
	return env, ws
}

func runOllm(b *testing.B, bin string, env []string, dir string, args ...string) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = env, dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		b.Fatalf("ollm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return d
}

// rawSession drives one server-everything by hand: start it, send each
// request and read up to its response, then kill it and reap it.
func rawSession(b *testing.B, script string, requests ...string) {
	cmd := exec.Command("node", script, "stdio")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	in := bufio.NewReader(stdout)
	for i, req := range requests {
		if _, err := io.WriteString(stdin, req+"\n"); err != nil {
			b.Fatal(err)
		}
		if strings.Contains(req, `"method":"notifications/`) {
			continue
		}
		want := fmt.Sprintf(`"id":%d`, i)
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				b.Fatalf("raw: %v", err)
			}
			if strings.Contains(line, want) {
				break
			}
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
}

const (
	rawInitialize  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	rawInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func medianOf(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// sandboxOff runs MCP servers without the kernel sandbox, to show what
// the sandbox's re-exec of ollm per server costs next to the floor.
const sandboxOff = "sandbox: mcp: preset: \"off\"\n"

// pairedBench runs raw and each ollm command line once per iteration and
// reports the median raw time (median-µs), the median of ollm minus raw
// for the first command (median-overhead-µs, the default configuration)
// and for the second (unsandboxed-overhead-µs), and ollm's own median.
func pairedBench(b *testing.B, raw func() time.Duration, ollm, unsandboxed func() time.Duration) {
	var floor, own, diff, diffOff []float64
	ollm()
	unsandboxed() // the generation and the protocol cache, as after the first use
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// The order rotates, so whatever runs first in an iteration (a
		// cold page cache, a neighbour's burst) is not always the floor.
		var r, o, u time.Duration
		runs := []func(){func() { r = raw() }, func() { o = ollm() }, func() { u = unsandboxed() }}
		for k := range runs {
			runs[(i+k)%len(runs)]()
		}
		floor = append(floor, float64(r.Microseconds()))
		own = append(own, float64(o.Microseconds()))
		diff = append(diff, float64((o - r).Microseconds()))
		diffOff = append(diffOff, float64((u - r).Microseconds()))
	}
	b.ReportMetric(medianOf(diff), "median-overhead-µs")
	b.ReportMetric(medianOf(floor), "median-µs")
	b.ReportMetric(medianOf(own), "ollm-median-µs")
	b.ReportMetric(medianOf(diffOff), "unsandboxed-overhead-µs")
}

// BenchmarkMCPListTen is `ollm mcp list` with ten stdio server-everything
// servers in the user profile, against ten parallel raw sessions
// (initialize, initialized, tools/list, kill).
func BenchmarkMCPListTen(b *testing.B) {
	bin := buildOllm(b)
	env, dir := benchHome(b, 10, "")
	envOff, dirOff := benchHome(b, 10, sandboxOff)
	script := everythingScript(b)
	raw := func() time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rawSession(b, script, rawInitialize, rawInitialized, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	pairedBench(b, raw,
		func() time.Duration { return runOllm(b, bin, env, dir, "mcp", "list") },
		func() time.Duration { return runOllm(b, bin, envOff, dirOff, "mcp", "list") })
}

// BenchmarkMCPCallOne is `ollm mcp call ev0 echo` with ten servers in the
// profile (only ev0 is started), against one raw session (initialize,
// initialized, tools/call, kill).
func BenchmarkMCPCallOne(b *testing.B) {
	bin := buildOllm(b)
	env, dir := benchHome(b, 10, "")
	envOff, dirOff := benchHome(b, 10, sandboxOff)
	script := everythingScript(b)
	args := []string{"mcp", "call", "ev0", "echo", `{"message":"hi"}`}
	raw := func() time.Duration {
		start := time.Now()
		rawSession(b, script, rawInitialize, rawInitialized,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
		return time.Since(start)
	}
	pairedBench(b, raw,
		func() time.Duration { return runOllm(b, bin, env, dir, args...) },
		func() time.Duration { return runOllm(b, bin, envOff, dirOff, args...) })
}
