// Command benchreport runs every benchmark target the issues set, each next
// to its reference in the same run, and writes docs/performance.md with
// the machine it ran on. `make bench-report` runs it from the repository
// root:
//
//	go run ./internal/benchreport [-o docs/performance.md]
//
// Each package's test binary is built once (go test -c) and run with small
// -test.benchtime and -test.count values so the report takes a few
// minutes. It exits 1 when a benchmark run failed (the report is written
// anyway and names the run); a missed target is reported, not an error.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "docs/performance.md", "report `FILE`")
	verbose := flag.Bool("v", false, "copy the benchmark output to stderr")
	raw := flag.String("raw", "", "also write the raw benchmark output to `FILE`")
	commit := flag.String("commit", "", "the commit to name in the report (default: git rev-parse --short HEAD)")
	only := flag.String("only", "", "run only the benchmarks of packages whose path contains `TEXT` (to try a change; the report then misses the rest)")
	flag.Parse()
	if err := generate(*out, *only, *commit, *raw, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "bench-report:", err)
		os.Exit(1)
	}
}

func generate(outPath, only, commit, rawPath string, verbose bool) error {
	if _, err := os.Stat("go.mod"); err != nil {
		return fmt.Errorf("run from the repository root: %w", err)
	}
	m := describeMachine()
	if commit != "" {
		m.Commit = commit
	}
	tmp, err := os.MkdirTemp("", "benchreport")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	s := samples{}
	var all bytes.Buffer
	var cmds, runErrs []string
	built := map[string]string{}
	for _, r := range runs {
		if !strings.Contains(r.Pkg, only) {
			continue
		}
		bin, ok := built[r.Pkg]
		if !ok {
			bin = filepath.Join(tmp, strings.NewReplacer("/", "_", ".", "").Replace(r.Pkg)+".test")
			fmt.Fprintf(os.Stderr, "building %s\n", r.Pkg)
			if msg, err := command("go", "test", "-c", "-o", bin, r.Pkg).CombinedOutput(); err != nil {
				runErrs = append(runErrs, fmt.Sprintf("`go test -c %s`: %v: %s", r.Pkg, err, firstLine(msg)))
				built[r.Pkg] = ""
				continue
			}
			built[r.Pkg] = bin
		}
		if bin == "" {
			continue
		}
		args := []string{"-test.run", "^$", "-test.bench", r.Bench, "-test.benchtime", r.Benchtime,
			"-test.count", fmt.Sprint(r.Count), "-test.timeout", "15m"}
		shown := fmt.Sprintf("(cd %s && %s.test %s)", strings.TrimPrefix(r.Pkg, "./"), filepath.Base(r.Pkg), quoteArgs(args))
		cmds = append(cmds, shown)
		fmt.Fprintf(os.Stderr, "running %s %s\n", r.Pkg, r.Bench)
		start := time.Now()
		cmd := command(bin, args...)
		cmd.Dir = r.Pkg
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if verbose {
			cmd.Stdout = io.MultiWriter(&buf, os.Stderr)
			cmd.Stderr = cmd.Stdout
		}
		runErr := cmd.Run()
		fmt.Fprintf(os.Stderr, "  %s\n", time.Since(start).Round(time.Millisecond))
		fmt.Fprintf(&all, "# %s\n%s", shown, buf.Bytes())
		if err := parseBench(bytes.NewReader(buf.Bytes()), s); err != nil {
			return err
		}
		if runErr != nil {
			runErrs = append(runErrs, fmt.Sprintf("`%s`: %v: %s", shown, runErr, lastLines(buf.Bytes(), 3)))
		}
	}
	m.LoadAfter = loadAvg()
	if rawPath != "" {
		if err := os.WriteFile(rawPath, all.Bytes(), 0o644); err != nil {
			return err
		}
	}
	res := evaluate(s, rows)
	old, _ := os.ReadFile(outPath)
	f, err := os.Create(outPath)
	if err != nil {
		return err
	}
	if err := writeReport(f, m, res, cmds, runErrs); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(keptPart(old)); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", outPath)
	if len(runErrs) > 0 {
		return fmt.Errorf("%d benchmark runs failed; see %s", len(runErrs), outPath)
	}
	return nil
}

// command runs with the environment the benchmarks need: the npm MCP
// reference servers `make deps` installs.
func command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = os.Environ()
	if os.Getenv("OLLM_NPM_DIR") == "" {
		if wd, err := os.Getwd(); err == nil {
			cmd.Env = append(cmd.Env, "OLLM_NPM_DIR="+filepath.Join(wd, ".deps", "npm"))
		}
	}
	return cmd
}

func quoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "^$|()* ") {
			a = "'" + a + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// describeMachine reads what the report states about the machine.
func describeMachine() machine {
	m := machine{
		Date:       time.Now().UTC().Format("2006-01-02"),
		NProc:      runtime.NumCPU(),
		CPU:        procField("/proc/cpuinfo", "model name"),
		Memory:     memTotal(),
		GoVersion:  strings.TrimSpace(outputOf("go", "env", "GOVERSION")),
		OS:         runtime.GOOS + "/" + runtime.GOARCH + ", kernel " + strings.TrimSpace(outputOf("uname", "-r")),
		Ripgrep:    firstLine([]byte(outputOf("rg", "--version"))),
		Gemini:     geminiVersion(),
		Commit:     strings.TrimSpace(outputOf("git", "rev-parse", "--short", "HEAD")),
		LoadBefore: loadAvg(),
	}
	if out := outputOf("nproc"); out != "" {
		fmt.Sscan(out, &m.NProc)
	}
	if m.Ripgrep == "" {
		m.Ripgrep = "not installed (the grep and glob rows are not measured)"
	}
	return m
}

func outputOf(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return ""
	}
	return string(out)
}

func procField(path, key string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func memTotal() string {
	kb := 0
	if v := procField("/proc/meminfo", "MemTotal"); v != "unknown" {
		fmt.Sscan(v, &kb)
	}
	if kb == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// geminiVersion names the Gemini CLI `make bench-deps` installed, the
// reference of the start rows, and the Node.js it runs on.
func geminiVersion() string {
	data, err := os.ReadFile(filepath.Join(".deps", "gemini", "node_modules", "@google", "gemini-cli", "package.json"))
	if err != nil {
		return "not installed (the start rows have no reference; make bench-deps)"
	}
	var pkg struct{ Version string }
	if json.Unmarshal(data, &pkg) != nil {
		return "unknown"
	}
	return "@google/gemini-cli " + pkg.Version + " on Node.js " + strings.TrimSpace(outputOf("node", "--version"))
}

// keptMarker starts the part of the report measured by hand (the install
// timings of a fresh clone), which a new report keeps as it is.
const keptMarker = "<!-- Measured by hand: make bench-report keeps everything from here. -->\n"

// keptPart is the old report from keptMarker on, or nothing.
func keptPart(old []byte) []byte {
	if i := bytes.Index(old, []byte(keptMarker)); i >= 0 {
		return append([]byte("\n"), old[i:]...)
	}
	return nil
}
