package tools

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ollm/ollm/core/tool"
)

// The search benchmarks run over $(go env GOROOT)/src (about 11 000 files,
// 150 MB) and, in the same run, ripgrep over the same tree, so the figures
// in docs/notes/tools.md compare like with like. The ripgrep halves skip
// when rg is not installed; the Go halves always run.

var benchGrepPatterns = []struct{ name, pattern, rgFlag string }{
	{"literal", `errors\.New\(`, ""},
	{"regex", `func \(\w+ \*\w+\) Close\(\)`, ""},
	{"nocase", `deprecated:`, "-i"},
}

func goroot(b *testing.B) string { return filepath.Join(runtime.GOROOT(), "src") }

func benchTool(b *testing.B, name, params string) {
	root := goroot(b)
	var tl tool.Tool
	for _, t := range Builtin(Config{Root: root, Getenv: func(string) string { return "" }}) {
		if t.Name() == name {
			tl = t
		}
	}
	b.ResetTimer()
	defer reportCPU(b)()
	for b.Loop() {
		inv, err := tl.Build(json.RawMessage(params))
		if err != nil {
			b.Fatal(err)
		}
		res, err := inv.Execute(context.Background(), nil)
		if err != nil || res.Error != nil {
			b.Fatal(err, res.Error)
		}
	}
}

// reportCPU adds cpu-ms/op, the process's user and system time per call:
// on a machine shared with other builds it varies far less than the wall
// time, which waits for the CPU. Call the returned function at the end.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/1e6/float64(b.N), "cpu-ms/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchRipgrep(b *testing.B, args ...string) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("ripgrep (rg) is not installed; install the ripgrep package to compare")
	}
	for b.Loop() {
		cmd := exec.Command(rg, args...)
		cmd.Dir = goroot(b)
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 0 {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkGrepGOROOT(b *testing.B) {
	for _, p := range benchGrepPatterns {
		params := map[string]any{"pattern": p.pattern, "maxResults": 100}
		if p.rgFlag == "-i" {
			params["caseSensitive"] = false
		}
		data, _ := json.Marshal(params)
		b.Run(p.name+"/ollm", func(b *testing.B) { benchTool(b, "grep", string(data)) })
		args := []string{"-n", "--no-heading", "--no-require-git"}
		if p.rgFlag != "" {
			args = append(args, p.rgFlag)
		}
		b.Run(p.name+"/rg", func(b *testing.B) { benchRipgrep(b, append(args, p.pattern, ".")...) })
	}
}

func BenchmarkGlobGOROOT(b *testing.B) {
	b.Run("ollm", func(b *testing.B) { benchTool(b, "glob", `{"pattern":"**/*_test.go","maxResults":100000}`) })
	b.Run("rg", func(b *testing.B) { benchRipgrep(b, "--files", "--no-require-git", "-g", "*_test.go", ".") })
}

// The read benchmarks measure one call's own cost (the path check, the
// open and the read) on files of the same tree.
func BenchmarkReadGOROOT(b *testing.B) {
	b.Run("read_file", func(b *testing.B) { benchTool(b, "read_file", `{"path":"os/file.go"}`) })
	b.Run("read_many_files", func(b *testing.B) { benchTool(b, "read_many_files", `{"paths":["os/*.go"],"maxFiles":1000}`) })
	b.Run("write_file", func(b *testing.B) { benchWrite(b) })
}

// benchWrite overwrites one file in a temporary workspace: the atomic
// replace (temporary file, fsync, rename, directory fsync) dominates.
func benchWrite(b *testing.B) {
	root := b.TempDir()
	var tl tool.Tool
	for _, t := range Builtin(Config{Root: root, Getenv: func(string) string { return "" }}) {
		if t.Name() == "write_file" {
			tl = t
		}
	}
	defer reportCPU(b)()
	for b.Loop() {
		inv, err := tl.Build(json.RawMessage(`{"path":"dir/f.txt","content":"hello\n","overwrite":true}`))
		if err != nil {
			b.Fatal(err)
		}
		res, err := inv.Execute(context.Background(), nil)
		if err != nil || res.Error != nil {
			b.Fatal(err, res.Error)
		}
	}
}
