package main

// run is one benchmark invocation: a package's test binary with a
// -test.bench pattern, a -test.benchtime and a -test.count small enough
// that the whole report takes a few minutes on two cores.
type run struct {
	Pkg       string // relative to the repository root
	Bench     string // -test.bench pattern
	Benchtime string
	Count     int
}

// runs is every benchmark the report needs. A target and its reference
// are always in the same invocation (or the same package, back to back),
// so they see the same machine load.
var runs = []run{
	{"./core/hooks", "^(BenchmarkRunnerOverhead|BenchmarkRunnerOverheadPaired|BenchmarkPersistentRoundTrip)$", "200x", 3},
	{"./core/hooks", "^BenchmarkTenHooks$", "30x", 3},
	{"./tools", "^(BenchmarkGrepGOROOT|BenchmarkGlobGOROOT)$", "10x", 3},
	{"./core/mcp", "^(BenchmarkCallClient|BenchmarkCallRaw)$", "2000x", 3},
	{"./core/mcp", "^(BenchmarkConnectTenParallel|BenchmarkConnectTenSequential)$", "3x", 1},
	{"./cmd/cli", "^(BenchmarkMCPListTen|BenchmarkMCPCallOne)$", "20x", 1},
	{"./core/mcp", "^(BenchmarkListTenPaired|BenchmarkCallOnePaired)$", "20x", 1},
	{"./resolver", "^BenchmarkApply20Cold$", "3x", 2},
	{"./resolver", "^(BenchmarkApply20Warm)$", "20x", 3},
	{"./resolver", "^(BenchmarkLoadCurrent|BenchmarkLoadCached)$", "200x", 3},
	{"./cmd/cli", "^BenchmarkRuntimeFromGeneration50$", "30x", 3},
	{"./store", "^BenchmarkVerifyStore50$", "100x", 3},
	{"./core/sandbox", "^BenchmarkShellOverhead$", "200x", 3},
	{"./profiles", "^BenchmarkResolve50$", "20x", 3},
	{"./profiles", "^BenchmarkResolve50Cached$", "100x", 3},
	{"./core/policy", "^(BenchmarkDecidePlainTool|BenchmarkDecideCompoundShell|BenchmarkDecideWrappedShell)$", "20000x", 3},
	{"./core/agent", "^BenchmarkTurnOverhead$", "100x", 2},
	{"./cmd/cli/tui", "^BenchmarkStream10kTokens$", "2x", 2},
	{"./cmd/ollm", "^BenchmarkStart$/^(go-hello|ollm-)", "40x", 3},
	{"./cmd/ollm", "^BenchmarkStart$/^gemini-", "3x", 2},
	{"./cmd/cli", "^BenchmarkACPSessionNew$", "20x", 3},
	{"./cmd/cli", "^BenchmarkRunFirstRequest50Cached$", "10x", 3},
}

// sel names one figure: a benchmark (without the -GOMAXPROCS suffix) and
// the unit of the metric.
type sel struct {
	Bench string
	Unit  string
}

// Check kinds: how a row passes.
const (
	checkMax   = "max"   // measured <= Limit (ns)
	checkRatio = "ratio" // measured / reference <= Limit
	checkNone  = "none"  // no target was set: recorded only
)

// row is one line of the report's table.
type row struct {
	Area      string
	What      string
	Measured  sel
	Reference *sel
	RefLabel  string // what the reference is
	Check     string
	Limit     float64 // ns for checkMax, a factor for checkRatio
	Target    string  // as the issue states it
}

const (
	us = 1e3
	ms = 1e6
)

// rows are the targets the issues set (issue number in Target), in the
// order of the report.
var rows = []row{
	{Area: "core/hooks", What: "hook runner overhead over a bare `exec.Command` of the same script (median of the per-iteration difference)",
		Measured: sel{"BenchmarkRunnerOverheadPaired", "median-overhead-µs"}, Reference: &sel{"BenchmarkRunnerOverhead/bare-exec", "median-µs"},
		RefLabel: "bare `exec.Command`, median", Check: checkMax, Limit: 1 * ms, Target: "<= 1 ms (#3)"},
	{Area: "core/hooks", What: "one hook through `Engine.Emit` (process per event), median",
		Measured: sel{"BenchmarkRunnerOverhead/emit", "median-µs"}, Reference: &sel{"BenchmarkRunnerOverhead/bare-exec", "median-µs"},
		RefLabel: "bare `exec.Command`, median", Check: checkNone, Target: "-"},
	{Area: "core/hooks", What: "persistent hook round trip through `Engine.Emit` (python3 NDJSON loop), median",
		Measured: sel{"BenchmarkPersistentRoundTrip", "median-µs"}, Reference: &sel{"BenchmarkRunnerOverhead/emit", "median-µs"},
		RefLabel: "the same event to a process hook", Check: checkMax, Limit: 100 * us, Target: "<= 100 µs (#3)"},
	{Area: "core/hooks", What: "ten persistent hooks on one event, median",
		Measured: sel{"BenchmarkTenHooks/persistent", "median-µs"}, Reference: &sel{"BenchmarkTenHooks/process-each", "median-µs"},
		RefLabel: "ten process hooks", Check: checkNone, Target: "recorded (#3)"},
	{Area: "tools", What: "grep `errors\\.New\\(` over `$GOROOT/src`",
		Measured: sel{"BenchmarkGrepGOROOT/literal/ollm", "ns/op"}, Reference: &sel{"BenchmarkGrepGOROOT/literal/rg", "ns/op"},
		RefLabel: "ripgrep", Check: checkRatio, Limit: 2, Target: "<= 2x ripgrep (#6)"},
	{Area: "tools", What: "grep `func \\(\\w+ \\*\\w+\\) Close\\(\\)` over `$GOROOT/src`",
		Measured: sel{"BenchmarkGrepGOROOT/regex/ollm", "ns/op"}, Reference: &sel{"BenchmarkGrepGOROOT/regex/rg", "ns/op"},
		RefLabel: "ripgrep", Check: checkRatio, Limit: 2, Target: "<= 2x ripgrep (#6)"},
	{Area: "tools", What: "grep -i `deprecated:` over `$GOROOT/src`",
		Measured: sel{"BenchmarkGrepGOROOT/nocase/ollm", "ns/op"}, Reference: &sel{"BenchmarkGrepGOROOT/nocase/rg", "ns/op"},
		RefLabel: "ripgrep -i", Check: checkRatio, Limit: 2, Target: "<= 2x ripgrep (#6)"},
	{Area: "tools", What: "glob `**/*_test.go` over `$GOROOT/src`",
		Measured: sel{"BenchmarkGlobGOROOT/ollm", "ns/op"}, Reference: &sel{"BenchmarkGlobGOROOT/rg", "ns/op"},
		RefLabel: "ripgrep --files -g", Check: checkRatio, Limit: 2, Target: "<= 2x ripgrep (#6)"},
	{Area: "core/mcp", What: "tools/call round trip through the client (Manager, line filter, mcp-go) to a Go stdio server",
		Measured: sel{"BenchmarkCallClient", "ns/op"}, Reference: &sel{"BenchmarkCallRaw", "ns/op"},
		RefLabel: "raw JSON-RPC line over the same kind of pipe", Check: checkNone, Target: "recorded (#5)"},
	{Area: "core/mcp", What: "connect ten stdio server-everything processes in parallel",
		Measured: sel{"BenchmarkConnectTenParallel", "ns/op"}, Reference: &sel{"BenchmarkConnectTenSequential", "ns/op"},
		RefLabel: "the same ten one after another", Check: checkNone, Target: "recorded (#5)"},
	{Area: "cmd/cli", What: "`ollm mcp list` with ten stdio server-everything servers (default sandbox), median of per-iteration differences",
		Measured: sel{"BenchmarkMCPListTen", "median-overhead-µs"}, Reference: &sel{"BenchmarkMCPListTen", "median-µs"},
		RefLabel: "raw floor: ten parallel sessions (initialize, tools/list, kill), median", Check: checkMax, Limit: 100 * ms, Target: "<= floor + 100 ms (#16)"},
	{Area: "cmd/cli", What: "`ollm mcp call` of one server out of ten (default sandbox), median of per-iteration differences",
		Measured: sel{"BenchmarkMCPCallOne", "median-overhead-µs"}, Reference: &sel{"BenchmarkMCPCallOne", "median-µs"},
		RefLabel: "raw floor: one session (initialize, tools/call, kill), median", Check: checkMax, Limit: 50 * ms, Target: "<= floor + 50 ms (#16)"},
	{Area: "core/mcp", What: "the Manager's part of `mcp list` (ten servers), median of per-iteration differences",
		Measured: sel{"BenchmarkListTenPaired", "median-overhead-µs"}, Reference: &sel{"BenchmarkListTenPaired", "median-µs"},
		RefLabel: "ten raw sessions, median", Check: checkNone, Target: "recorded (#16)"},
	{Area: "core/mcp", What: "the Manager's part of `mcp call`, median of per-iteration differences",
		Measured: sel{"BenchmarkCallOnePaired", "median-overhead-µs"}, Reference: &sel{"BenchmarkCallOnePaired", "median-µs"},
		RefLabel: "one raw session, median", Check: checkNone, Target: "recorded (#16)"},
	{Area: "resolver", What: "apply 20 locked git extensions, warm (nothing to fetch)",
		Measured: sel{"BenchmarkApply20Warm", "ns/op"}, Reference: &sel{"BenchmarkApply20Cold", "ns/op"},
		RefLabel: "cold apply (fetch everything into an empty home)", Check: checkMax, Limit: 100 * ms, Target: "< 100 ms (#7)"},
	{Area: "resolver", What: "load the current generation at session start (20 extensions)",
		Measured: sel{"BenchmarkLoadCurrent", "ns/op"}, Reference: &sel{"BenchmarkLoadCached", "ns/op"},
		RefLabel: "`profiles.Load` with a warm resolution cache", Check: checkMax, Limit: 5 * ms, Target: "< 5 ms (#7)"},
	{Area: "core/runtime", What: "a session's runtime ready for the first prompt from a cached generation of 50 extensions (3 hooks, 3 settings, a skill and 2 MCP servers each; the servers start in the background, after it is ready)",
		Measured: sel{"BenchmarkRuntimeFromGeneration50/two-servers-each", "ns/op"}, Reference: &sel{"BenchmarkRuntimeFromGeneration50/no-servers", "ns/op"},
		RefLabel: "the same extensions without MCP servers", Check: checkMax, Limit: 30 * ms, Target: "<= 30 ms (#14)"},
	{Area: "core/runtime", What: "quitting that session at once: `Runtime.Close` stops the 100 servers still starting (SIGTERM, reaped), mean",
		Measured: sel{"BenchmarkRuntimeFromGeneration50/two-servers-each", "close-ms"}, Reference: &sel{"BenchmarkRuntimeFromGeneration50/no-servers", "close-ms"},
		RefLabel: "the same without MCP servers", Check: checkNone, Target: "recorded (#14)"},
	{Area: "cmd/cli", What: "`ollm run -p`: first request to the model after start with 50 node stdio servers whose tools are cached (all still connecting), median",
		Measured: sel{"BenchmarkRunFirstRequest50Cached/fifty-cached", "first-request-ms"}, Reference: &sel{"BenchmarkRunFirstRequest50Cached/no-servers", "first-request-ms"},
		RefLabel: "the same run without MCP servers", Check: checkMax, Limit: 50 * ms, Target: "<= 50 ms (#29)"},
	{Area: "cmd/cli", What: "the CPU time ollm's process used until that request (not the servers'; a shared machine's load does not inflate it as it does the wall time), median",
		Measured: sel{"BenchmarkRunFirstRequest50Cached/fifty-cached", "cpu-ms"}, Reference: &sel{"BenchmarkRunFirstRequest50Cached/no-servers", "cpu-ms"},
		RefLabel: "the same run without MCP servers", Check: checkNone, Target: "recorded (#29)"},
	{Area: "store", What: "verify 50 unchanged store entries (20 files each) against ollm.lock at session start, warm fingerprint cache",
		Measured: sel{"BenchmarkVerifyStore50/warm", "ns/op"}, Reference: &sel{"BenchmarkVerifyStore50/rehash", "ns/op"},
		RefLabel: "the same with every entry hashed in full", Check: checkMax, Limit: 5 * ms, Target: "< 5 ms (#12)"},
	{Area: "core/sandbox", What: "sandbox overhead per shell command (`bash -c true` under the default shell sandbox, started as the shell tool starts it: one clone, the shared user and network namespaces and the policy's kept mount namespace joined, its kept Landlock ruleset with scopes, seccomp, a session of its own; median of paired differences)",
		Measured: sel{"BenchmarkShellOverhead", "median-overhead-µs"}, Reference: &sel{"BenchmarkShellOverhead", "median-µs"},
		RefLabel: "bare `bash -c true`, median", Check: checkMax, Limit: 1 * ms, Target: "<= 1 ms (#25; was 5 ms in #13)"},
	{Area: "profiles", What: "resolve a profile with 50 extensions (3 hooks, 2 MCP servers, 3 settings each) through CUE",
		Measured: sel{"BenchmarkResolve50", "ns/op"}, Reference: &sel{"BenchmarkResolve50Cached", "ns/op"},
		RefLabel: "the same from the resolution cache", Check: checkMax, Limit: 100 * ms, Target: "< 100 ms (#2)"},
	{Area: "core/policy", What: "policy decision, plain tool, 20 rules (wall time)",
		Measured: sel{"BenchmarkDecidePlainTool", "ns/op"}, Reference: &sel{"BenchmarkDecidePlainTool", "cpu-ns/op"},
		RefLabel: "CPU time per decision", Check: checkMax, Limit: 50 * us, Target: "< 50 µs (#6)"},
	{Area: "core/policy", What: "policy decision, 9-part shell command (pipes, &&, ;, redirection, substitution)",
		Measured: sel{"BenchmarkDecideCompoundShell", "ns/op"}, Reference: &sel{"BenchmarkDecideCompoundShell", "cpu-ns/op"},
		RefLabel: "CPU time per decision", Check: checkMax, Limit: 50 * us, Target: "< 50 µs (#6)"},
	{Area: "core/policy", What: "policy decision, wrapped shell (find -exec, xargs, sudo, env, bash -c)",
		Measured: sel{"BenchmarkDecideWrappedShell", "ns/op"}, Reference: &sel{"BenchmarkDecideWrappedShell", "cpu-ns/op"},
		RefLabel: "CPU time per decision", Check: checkMax, Limit: 50 * us, Target: "< 50 µs (#6)"},
	{Area: "core/agent", What: "agent loop overhead per turn, five persistent hooks and five MCP servers (median)",
		Measured: sel{"BenchmarkTurnOverhead/persistent-hooks", "overhead-ms/turn"}, Reference: &sel{"BenchmarkTurnOverhead/no-hooks", "overhead-ms/turn"},
		RefLabel: "the same loop without hooks", Check: checkMax, Limit: 5 * ms, Target: "< 5 ms (#8)"},
	{Area: "core/agent", What: "agent loop overhead per turn, five process hooks (one process per event) under the hooks' default sandbox and five MCP servers, net of the hook programs' own run time (the same program run bare as often; median)",
		Measured: sel{"BenchmarkTurnOverhead/process-hooks-sandboxed", "net-overhead-ms/turn"}, Reference: &sel{"BenchmarkTurnOverhead/process-hooks", "net-overhead-ms/turn"},
		RefLabel: "the same unsandboxed", Check: checkMax, Limit: 5 * ms, Target: "< 5 ms (#8, #25)"},
	{Area: "core/agent", What: "the same turn in all, the hook programs included (the fixture is env, bash and cat: three execs a run; median)",
		Measured: sel{"BenchmarkTurnOverhead/process-hooks-sandboxed", "overhead-ms/turn"}, Reference: &sel{"BenchmarkTurnOverhead/process-hooks-sandboxed", "hook-programs-ms/turn"},
		RefLabel: "the hook programs alone, run bare", Check: checkNone, Target: "recorded (#25)"},
	{Area: "cmd/cli/tui", What: "TUI: render one streamed token of a 10,000-token markdown answer (Update + View at 120x40)",
		Measured: sel{"BenchmarkStream10kTokens", "ns/delta"}, Check: checkMax, Limit: 5 * ms,
		RefLabel: "-", Target: "keeps up with the stream: < 5 ms per token, i.e. 200 tokens/s (#8)"},
	{Area: "cmd/ollm", What: "`ollm version`, the whole process (median wall time)",
		Measured: sel{"BenchmarkStart/ollm-version", "median-µs"}, Reference: &sel{"BenchmarkStart/gemini-version", "median-µs"},
		RefLabel: "`gemini --version` (npm @google/gemini-cli)", Check: checkMax, Limit: 15 * ms, Target: "<= 15 ms (#14)"},
	{Area: "cmd/ollm", What: "`ollm --help`, the whole process (median wall time)",
		Measured: sel{"BenchmarkStart/ollm-help", "median-µs"}, Reference: &sel{"BenchmarkStart/gemini-version", "median-µs"},
		RefLabel: "`gemini --version`", Check: checkMax, Limit: 15 * ms, Target: "<= 15 ms (#14)"},
	{Area: "cmd/ollm", What: "`ollm version` built with upstream glamour, goldmark and chroma, which do their work at package initialisation (instead of the copies in internal/fork; internal/fork/README.md)",
		Measured: sel{"BenchmarkStart/ollm-version-upstream", "median-µs"}, Reference: &sel{"BenchmarkStart/ollm-version", "median-µs"},
		RefLabel: "`ollm version` as built", Check: checkNone, Target: "-"},
	{Area: "cmd/ollm", What: "a Go program that prints one line, the floor of any Go command's start on the machine (median wall time)",
		Measured: sel{"BenchmarkStart/go-hello", "median-µs"}, Check: checkNone, RefLabel: "-", Target: "-"},
	{Area: "cmd/ollm", What: "`ollm ext list` with an empty home and no workspace (median wall time)",
		Measured: sel{"BenchmarkStart/ollm-ext-list", "median-µs"}, Reference: &sel{"BenchmarkStart/gemini-extensions-list", "median-µs"},
		RefLabel: "`gemini extensions list`, empty home", Check: checkNone, Target: "recorded (#14)"},
	{Area: "core/acp", What: "`ollm acp`: an editor's session/new until the session is ready for its first prompt, from a cached generation of 50 extensions (3 hooks, 3 settings and a skill each), measured at the client",
		Measured: sel{"BenchmarkACPSessionNew/extensions-50", "ns/op"}, Reference: &sel{"BenchmarkACPSessionNew/extensions-0", "ns/op"},
		RefLabel: "the same workspace without extensions", Check: checkMax, Limit: 50 * ms, Target: "< 50 ms (#17)"},
}

// unitNS converts a metric's unit to nanoseconds.
var unitNS = map[string]float64{
	"ns/op":                 1,
	"cpu-ns/op":             1,
	"ns/delta":              1,
	"median-µs":             us,
	"median-overhead-µs":    us,
	"overhead-ms/turn":      ms,
	"p90-overhead-ms/turn":  ms,
	"net-overhead-ms/turn":  ms,
	"hook-programs-ms/turn": ms,
	"close-ms":              ms,
	"first-request-ms":      ms,
	"cpu-ms":                ms,
}
