package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ollm/ollm/internal/lazyre"
)

// samples holds every figure a benchmark run printed: benchmark name
// (GOMAXPROCS suffix removed) -> unit -> one value per -count.
type samples map[string]map[string][]float64

var procSuffix = lazyre.New(`-\d+$`)

// parseBench reads `go test -bench` output into s. Lines that are not
// benchmark results are ignored.
func parseBench(r io.Reader, s samples) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // "BenchmarkX ... SKIP" or a log line
		}
		name := procSuffix.ReplaceAllString(f[0], "")
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			if s[name] == nil {
				s[name] = map[string][]float64{}
			}
			s[name][f[i+1]] = append(s[name][f[i+1]], v)
		}
	}
	return sc.Err()
}

// figure is one aggregated value in nanoseconds.
type figure struct {
	Median, Min, Max float64
	N                int
}

// get returns the median and range of a selected figure in ns.
func (s samples) get(x sel) (figure, bool) {
	vs := s[x.Bench][x.Unit]
	f, ok := unitNS[x.Unit]
	if len(vs) == 0 || !ok {
		return figure{}, false
	}
	vs = slices.Clone(vs)
	slices.Sort(vs)
	med := vs[len(vs)/2]
	if len(vs)%2 == 0 {
		med = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
	}
	return figure{Median: med * f, Min: vs[0] * f, Max: vs[len(vs)-1] * f, N: len(vs)}, true
}

// result is one evaluated row.
type result struct {
	Row      row
	Measured string
	Ref      string
	Verdict  string // "pass", "FAIL", "-" (no target) or "not measured"
}

// evaluate judges each row against the samples.
func evaluate(s samples, rs []row) []result {
	out := make([]result, 0, len(rs))
	for _, r := range rs {
		res := result{Row: r, Ref: "-"}
		m, ok := s.get(r.Measured)
		var ref figure
		haveRef := false
		if r.Reference != nil {
			ref, haveRef = s.get(*r.Reference)
			if haveRef {
				res.Ref = r.RefLabel + ": " + fmtFigure(ref)
			} else {
				res.Ref = r.RefLabel + ": not measured"
			}
		}
		if !ok {
			res.Measured, res.Verdict = "not measured", "not measured"
			out = append(out, res)
			continue
		}
		res.Measured = fmtFigure(m)
		switch r.Check {
		case checkMax:
			res.Verdict = verdict(m.Median <= r.Limit)
			if res.Verdict == "FAIL" && m.Min <= r.Limit {
				res.Measured += "; the best run meets the target"
			}
		case checkRatio:
			if !haveRef || ref.Median == 0 {
				res.Verdict = "not measured"
				break
			}
			ratio := m.Median / ref.Median
			res.Measured += fmt.Sprintf(" (%.2fx)", ratio)
			res.Verdict = verdict(ratio <= r.Limit)
			if res.Verdict == "FAIL" && m.Min/ref.Median <= r.Limit {
				res.Measured += fmt.Sprintf("; the best run is %.2fx", m.Min/ref.Median)
			}
		default:
			if haveRef && ref.Median > 0 {
				res.Measured += fmt.Sprintf(" (%.2fx)", m.Median/ref.Median)
			}
			res.Verdict = "-"
		}
		out = append(out, res)
	}
	return out
}

func verdict(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

// fmtFigure prints the median and, with several samples that differ, the
// range.
func fmtFigure(f figure) string {
	s := fmtNS(f.Median)
	if f.N > 1 && fmtNS(f.Min) != fmtNS(f.Max) {
		s += " (" + fmtNS(f.Min) + " - " + fmtNS(f.Max) + ")"
	}
	return s
}

// fmtNS prints a duration in ns with three significant digits.
func fmtNS(ns float64) string {
	unit, div := "ns", 1.0
	switch {
	case ns >= 1e9:
		unit, div = "s", 1e9
	case ns >= 1e6:
		unit, div = "ms", 1e6
	case ns >= 1e3:
		unit, div = "µs", 1e3
	}
	v := ns / div
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}

// machine describes where the report ran.
type machine struct {
	Date, CPU, Memory, GoVersion, OS, Ripgrep, Gemini, Commit string
	NProc                                                     int
	LoadBefore, LoadAfter                                     string
}

// writeReport writes docs/performance.md.
func writeReport(w io.Writer, m machine, res []result, cmds []string, runErrs []string) error {
	var b strings.Builder
	b.WriteString("# Performance\n\n")
	b.WriteString("<!-- Written by `make bench-report` (internal/benchreport). Do not edit by hand: run it again. -->\n\n")
	b.WriteString("Every benchmark target the issues set, each measured next to its reference in\n")
	b.WriteString("the same run on the same machine. Figures are medians over the `-count` runs,\n")
	b.WriteString("with the range in parentheses; a ratio in parentheses is measured / reference.\n\n")

	b.WriteString("## Machine\n\n")
	b.WriteString("| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| date | %s |\n", m.Date)
	fmt.Fprintf(&b, "| CPU | %s, `nproc` = %d |\n", m.CPU, m.NProc)
	fmt.Fprintf(&b, "| memory | %s |\n", m.Memory)
	fmt.Fprintf(&b, "| OS | %s |\n", m.OS)
	fmt.Fprintf(&b, "| Go | %s |\n", m.GoVersion)
	fmt.Fprintf(&b, "| ripgrep | %s |\n", m.Ripgrep)
	fmt.Fprintf(&b, "| Gemini CLI | %s |\n", m.Gemini)
	fmt.Fprintf(&b, "| commit | %s |\n", m.Commit)
	fmt.Fprintf(&b, "| load average (1, 5, 15 min) before / after | %s / %s |\n\n", m.LoadBefore, m.LoadAfter)

	pass, fail, none := 0, 0, 0
	for _, r := range res {
		switch r.Verdict {
		case "pass":
			pass++
		case "FAIL":
			fail++
		default:
			none++
		}
	}
	fmt.Fprintf(&b, "## Results\n\n%d targets met, %d missed, %d rows without a target or not measured.\n\n", pass, fail, none)
	b.WriteString("| area | what | target | measured | reference | result |\n|---|---|---|---|---|---|\n")
	for _, r := range res {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.Row.Area, r.Row.What, r.Row.Target, r.Measured, r.Ref, bold(r.Verdict))
	}
	b.WriteString("\n")

	if len(runErrs) > 0 {
		b.WriteString("## Runs that failed\n\n")
		for _, e := range runErrs {
			fmt.Fprintf(&b, "- %s\n", e)
		}
		b.WriteString("\n")
	}

	b.WriteString(notes)

	b.WriteString("## How it was measured\n\n")
	b.WriteString("Each line is one test binary run from its package directory\n(`go test -c`, then):\n\n```sh\n")
	for _, c := range cmds {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func bold(v string) string {
	if v == "FAIL" {
		return "**FAIL**"
	}
	return v
}

const notes = `## Reading the table

- **Hooks.** The runner's overhead is the median of (Emit - bare exec) taken
  in each iteration, which stays readable when process start varies by more
  than the overhead itself. A hook that starts a process per event pays the
  process start (the reference column); hooks that fire on every turn should
  be ` + "`persistent: true`" + `.
- **Agent loop.** overhead = (wall - time in the model - time in the tool) / 2
  turns, five hooks (one on each per-turn event) and five server-everything
  MCP servers. The process-hook row is there to show why persistent hooks
  exist: five process starts per turn cannot fit in 5 ms.
- **Policy.** Wall time includes waiting for a core on a loaded machine; the
  CPU time per decision is the figure that does not.
- **TUI.** The issue asks that rendering does not fall behind the stream; the
  row's bound (5 ms per one-token delta, 200 tokens/s) is faster than local
  models stream. The benchmark runs one View per delta, the worst case:
  bubbletea draws at most 60 frames a second.
- **Store verification.** A session start stats every file and directory of
  each locked store entry (one lstat each, on two cores) and compares a keyed
  fingerprint with the cache; only a changed entry is hashed in full (the
  reference). The cost is the kernel's stat calls: about 1,400 for 50
  entries of 20 files.
- **Sandbox.** A bare and a sandboxed ` + "`bash -c true`" + ` alternate; the row is the
  median of the differences. The sandboxed one re-executes ollm's test
  binary into new user and mount namespaces, where a C constructor applies
  Landlock before the Go runtime starts (docs/notes/sandbox.md; a network
  namespace, with ` + "`isolate`" + `, adds about 2 ms).
- **Start.** One process per iteration, with an empty home, from a warm
  page cache; the rows are median wall times. Package initialisation runs
  before ` + "`main`" + ` for every package linked in, so the start path is the
  sum of what every library does at init: chroma's lexers and styles load
  on first use (internal/fork/README.md), the JSON Schema metaschemas and
  CUE's decimal constants do not (docs/decisions.md);
  ` + "`go test ./cmd/ollm -run TestStartInitIsLight`" + ` guards the
  allocations. The test binary also reports the CPU time (` + "`median-cpu-µs`" + `).
  Gemini CLI is a Node.js program: its figures are Node's start plus its
  bundle.
- **MCP and connect rows** have no target in the issue; they are recorded
  with their reference.
- **A slower day.** Process starts vary with what else the shared machine
  runs: compare the bare-exec reference of the hooks rows between reports
  before comparing other figures.

`
