package policy

import (
	"encoding/json"
	"testing"

	"github.com/ollm/ollm/schema"
)

// FuzzDecideShell shows that no command line makes the parser or the
// policy panic, and that a denied command stays denied whatever follows
// it (whatever precedes it may legitimately quote it: `echo '` + rm). The seeds run in every `go test`; explore with
// go test -fuzz FuzzDecideShell ./core/policy.
func FuzzDecideShell(f *testing.F) {
	for _, s := range []string{
		"ls -la", "ls && rm -rf /", "echo $(rm -rf /)", "echo `rm -rf /`", `bash -c "rm -rf /"`,
		`find . -exec rm -rf {} \;`, "xargs rm", "env FOO=1 rm -rf /", "ls | rm", "(rm -rf /)",
		"ls\nrm -rf /", "cat <(rm x) >(rm y)", "cat <<EOF\n$(rm)\nEOF", "${x:-$(rm)}", "ls &&",
		"echo 'unterminated", "f() { rm; }", "sudo -u root nice -n 1 timeout 5 command env bash -c 'eval rm'",
		"$'\\x72m' -rf /", "a=(1 2); ${a[@]}", "[[ -f x ]] && rm", "case x in y) rm;; esac", "coproc rm",
		"for ((i=0;i<3;i++)); do rm; done", "select x in a; do rm; done", "let x=1", "echo {a,b}", "~/bin/rm",
		"exec 3>&1", "echo >& file", "export X=1 Y=$(rm)", "declare -a x=(1)", "time -p rm", "! rm",
		"bash -c", "find -exec", "xargs -I{} rm {}", "env -S", "sudo --", "watch -x rm", "su -c",
		`echo "rm -f M" | sh`, "trap 'rm -f M' EXIT", "flock L rm -f M", "script -qc 'rm -f M' /dev/null",
		"strace -o /dev/null rm -f M", "cat <<EOF | sh\nrm\nEOF", "bash <<< rm", "printf '%s\\n' rm | bash -s",
		"echo rm | cat - | sudo -i", "python3 - <<'PY'\nx\nPY", "PROMPT_COMMAND=rm", "export LD_PRELOAD=x",
		"env 'BASH_FUNC_f%%=() { rm; }' bash -c f", "parallel rm {} ::: a ::: b", "parallel ::: rm", "busybox rm",
		"watch -n $N x", "strace -E $V rm", "exec <x; sh", "echo rm > >(sh)", "sh <<-EOF\n\trm\n\tEOF",
	} {
		f.Add(s)
	}
	p := MustCompile(schema.Policy{DefaultAction: "allow", Rules: []schema.PolicyRule{
		R("shell", "deny", eq("$program", "rm")),
		R("shell", "allow", &schema.Condition{Arg: "$args", Matches: "^-"}),
		R("shell", "ask", &schema.Condition{Arg: "$writes", Glob: "/etc/**"}),
	}}, Options{})
	f.Fuzz(func(t *testing.T, cmd string) {
		_ = splitCommand(cmd)
		d := p.Decide(shellFacts, map[string]any{"command": cmd})
		if d.Action == "" || d.Reason == "" {
			t.Fatalf("empty decision for %q: %+v", cmd, d)
		}
		raw, _ := json.Marshal(map[string]string{"command": "rm -rf /\n" + cmd})
		if d, _ := p.DecideJSON(shellFacts, raw); d.Action != Deny {
			t.Fatalf("rm followed by %q was not denied: %s", cmd, d.Reason)
		}
	})
}
