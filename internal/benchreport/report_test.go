package main

import (
	"strings"
	"testing"
)

const sampleOutput = `goos: linux
goarch: amd64
pkg: github.com/ollm/ollm/core/hooks
cpu: AMD EPYC
BenchmarkRunnerOverhead/bare-exec-2         	     200	   4100000 ns/op	      4000 median-µs
BenchmarkRunnerOverhead/bare-exec-2         	     200	   4200000 ns/op	      4200 median-µs
BenchmarkRunnerOverhead/bare-exec-2         	     200	   4300000 ns/op	      4100 median-µs
BenchmarkRunnerOverheadPaired-2             	     200	   8000000 ns/op	        52.00 median-overhead-µs
BenchmarkPersistentRoundTrip-2              	     200	     50000 ns/op	       140.0 median-µs
--- SKIP: BenchmarkGrepGOROOT/literal/rg
BenchmarkGrepGOROOT/literal/ollm-2          	      10	 106000000 ns/op
BenchmarkGrepGOROOT/regex/ollm-2            	      10	 200000000 ns/op
BenchmarkGrepGOROOT/regex/ollm-2            	      10	 150000000 ns/op
BenchmarkGrepGOROOT/regex/ollm-2            	      10	 210000000 ns/op
BenchmarkGrepGOROOT/regex/rg-2              	      10	  80000000 ns/op
BenchmarkDecidePlainTool-2                  	   20000	      2500 ns/op	      2400 cpu-ns/op	     512 B/op	       9 allocs/op
BenchmarkConnectTenParallel-2               	       3	2500000000 ns/op
BenchmarkConnectTenSequential-2             	       3	3500000000 ns/op
PASS
ok  	github.com/ollm/ollm/core/hooks	12.3s
`

func TestParseAndEvaluate(t *testing.T) {
	s := samples{}
	if err := parseBench(strings.NewReader(sampleOutput), s); err != nil {
		t.Fatal(err)
	}
	if got := len(s["BenchmarkRunnerOverhead/bare-exec"]["median-µs"]); got != 3 {
		t.Fatalf("bare-exec samples = %d, want 3 (GOMAXPROCS suffix stripped)", got)
	}
	if v := s["BenchmarkDecidePlainTool"]["allocs/op"]; len(v) != 1 || v[0] != 9 {
		t.Fatalf("allocs/op = %v", v)
	}
	f, ok := s.get(sel{"BenchmarkRunnerOverhead/bare-exec", "median-µs"})
	if !ok || f.Median != 4100e3 || f.Min != 4000e3 || f.Max != 4200e3 {
		t.Fatalf("figure = %+v", f)
	}
	byWhat := map[string]result{}
	for _, r := range evaluate(s, rows) {
		byWhat[r.Row.Measured.Bench+" "+r.Row.Measured.Unit] = r
	}
	cases := []struct{ key, verdict, measured, ref string }{
		{"BenchmarkRunnerOverheadPaired median-overhead-µs", "pass", "52.0 µs", "bare `exec.Command`, median: 4.10 ms (4.00 ms - 4.20 ms)"},
		{"BenchmarkPersistentRoundTrip median-µs", "FAIL", "140 µs", "the same event to a process hook: not measured"},
		{"BenchmarkGrepGOROOT/literal/ollm ns/op", "not measured", "106 ms", "ripgrep: not measured"},
		{"BenchmarkGrepGOROOT/regex/ollm ns/op", "FAIL", "200 ms (150 ms - 210 ms) (2.50x); the best run is 1.88x", "ripgrep: 80.0 ms"},
		{"BenchmarkDecidePlainTool ns/op", "pass", "2.50 µs", "CPU time per decision: 2.40 µs"},
		{"BenchmarkConnectTenParallel ns/op", "-", "2.50 s (0.71x)", "the same ten one after another: 3.50 s"},
		{"BenchmarkResolve50 ns/op", "not measured", "not measured", "the same from the resolution cache: not measured"},
	}
	for _, c := range cases {
		r, ok := byWhat[c.key]
		if !ok {
			t.Errorf("%s: no row", c.key)
			continue
		}
		if r.Verdict != c.verdict || r.Measured != c.measured || r.Ref != c.ref {
			t.Errorf("%s = %q / %q / %q, want %q / %q / %q", c.key, r.Verdict, r.Measured, r.Ref, c.verdict, c.measured, c.ref)
		}
	}
}

func TestRowsAreMeasured(t *testing.T) {
	// Every figure a row reads is produced by a benchmark some run selects,
	// and its unit converts to ns.
	for _, r := range rows {
		sels := []sel{r.Measured}
		if r.Reference != nil {
			sels = append(sels, *r.Reference)
		}
		for _, x := range sels {
			if _, ok := unitNS[x.Unit]; !ok {
				t.Errorf("%s: unit %q has no conversion", r.What, x.Unit)
			}
			top := strings.SplitN(x.Bench, "/", 2)[0]
			found := false
			for _, rn := range runs {
				if strings.Contains(rn.Bench, strings.TrimPrefix(top, "Benchmark")) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no run selects %s", r.What, top)
			}
		}
		if r.Check == checkMax && r.Limit <= 0 || r.Check == checkRatio && r.Reference == nil {
			t.Errorf("%s: check %s without a limit or reference", r.What, r.Check)
		}
	}
}

func TestReport(t *testing.T) {
	var b strings.Builder
	res := []result{{Row: rows[0], Measured: "52.0 µs", Ref: "bare: 4 ms", Verdict: "pass"}, {Row: rows[2], Measured: "140 µs", Ref: "-", Verdict: "FAIL"}}
	m := machine{Date: "2026-01-02", CPU: "AMD EPYC", NProc: 2, Memory: "23.5 GiB", GoVersion: "go1.26.8"}
	if err := writeReport(&b, m, res, []string{"(cd core/hooks && hooks.test -test.bench x)"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| CPU | AMD EPYC, `nproc` = 2 |", "1 targets met, 1 missed", "| **FAIL** |", "2026-01-02", "hooks.test -test.bench x"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestFmtNS(t *testing.T) {
	for ns, want := range map[float64]string{12: "12.0 ns", 2500: "2.50 µs", 52e3: "52.0 µs", 140e3: "140 µs", 4.1e6: "4.10 ms", 2.5e9: "2.50 s"} {
		if got := fmtNS(ns); got != want {
			t.Errorf("fmtNS(%v) = %q, want %q", ns, got, want)
		}
	}
}
