package policy

import (
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/ollm/ollm/schema"
)

// benchRules are 20 rules of the kinds a real profile holds.
func benchRules() []schema.PolicyRule {
	rs := []schema.PolicyRule{
		R("*", "ask", nil),
		R("read_file", "allow", nil), R("grep", "allow", nil), R("glob", "allow", nil), R("ls", "allow", nil),
		R("mcp:github:*", "ask", nil),
		R("write_file", "deny", &schema.Condition{Arg: "path", Glob: "**/.env"}),
		R("write_file", "deny", &schema.Condition{Arg: "path", Matches: `\.(pem|key)$`}),
		R("edit_file", "deny", &schema.Condition{Arg: "path", StartsWith: "/etc/"}),
		R("shell", "allow", &schema.Condition{Arg: "$program", OneOf: []any{"ls", "cat", "grep", "git", "go", "make", "wc", "sort", "head", "tail"}}),
		R("shell", "deny", eq("$program", "rm")),
		R("shell", "deny", eq("$program", "curl")),
		R("shell", "deny", eq("$program", "wget")),
		R("shell", "deny", &schema.Condition{All: []schema.Condition{*eq("$program", "git"), {Arg: "$args", OneOf: []any{"--force", "-f"}}}}),
		R("shell", "deny", &schema.Condition{Arg: "$writes", Glob: "/etc/**"}),
		R("shell", "ask", &schema.Condition{Arg: "$command", Matches: `^go (get|install)`}),
		R("shell", "deny", &schema.Condition{Arg: "$args", Contains: "--no-verify"}),
		R("web_fetch", "ask", &schema.Condition{Not: &schema.Condition{Arg: "url", StartsWith: "https://"}}),
		R("web_fetch", "allow", &schema.Condition{Arg: "url", Glob: "https://pkg.go.dev/**"}),
		R("memory", "allow", nil),
	}
	if len(rs) != 20 {
		panic(fmt.Sprint(len(rs)))
	}
	return rs
}

// cpuTime is the process's user and system CPU time. The benchmarks report
// it per operation beside wall time, because on a shared, loaded machine
// wall time counts the time spent waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchDecide(b *testing.B, f Facts, raw json.RawMessage, want Action) {
	p := MustCompile(schema.Policy{Rules: benchRules()}, Options{})
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if d, _ := p.DecideJSON(f, raw); d.Action != want {
			b.Fatal(d.Action, d.Reason)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

func BenchmarkDecidePlainTool(b *testing.B) {
	benchDecide(b, writeFacts, json.RawMessage(`{"path":"internal/server/handler.go","content":"package server\n"}`), Ask)
}

// BenchmarkDecideCompoundShell: 9 sub-commands with pipes, &&, ;, a
// redirection and a command substitution, against 20 rules.
func BenchmarkDecideCompoundShell(b *testing.B) {
	benchDecide(b, shellFacts, json.RawMessage(`{"command":"cd src && go test ./... 2>&1 | tee /tmp/log | grep -v ok; git status --porcelain | wc -l && echo \"$(git rev-parse HEAD)\" > out.txt"}`), Ask)
}

// BenchmarkDecideWrappedShell: find -exec, xargs, sudo, env and bash -c
// looked through.
func BenchmarkDecideWrappedShell(b *testing.B) {
	benchDecide(b, shellFacts, json.RawMessage(`{"command":"find . -name '*.go' -exec grep -l TODO {} + | xargs -0 sudo env A=1 bash -c 'ls; cat x'"}`), Ask)
}

// BenchmarkDecideFedShell: commands fed to shells on their input (a pipe
// from printf, a here-document) and a variable holding a command line.
func BenchmarkDecideFedShell(b *testing.B) {
	benchDecide(b, shellFacts, json.RawMessage(`{"command":"printf '%s\\n' 'go vet ./...' | bash && GIT_PAGER=cat git log -1 && sh <<'EOF'\nls -la\ngrep -r TODO .\nEOF"}`), Ask)
}
