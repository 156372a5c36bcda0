package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/schema"
)

// The five commands of issue 12 that deleted a marker file under a deny
// rule on rm in yolo mode.
var reportedBypasses = []string{
	`echo "rm -f M" | sh`,
	`trap 'rm -f M' EXIT`,
	`flock L rm -f M`,
	`script -qc 'rm -f M' /dev/null`,
	`strace -o /dev/null rm -f M`,
}

func TestReportedBypassesAreDenied(t *testing.T) {
	for _, mode := range []string{"yolo", "default"} {
		p := MustCompile(schema.Policy{Mode: mode, DefaultAction: "allow", Rules: []schema.PolicyRule{
			named("no-rm", R("shell", "deny", eq("$program", "rm"))),
		}}, Options{})
		for _, cmd := range reportedBypasses {
			d := decideShell(t, p, cmd)
			if d.Action != Deny || d.Rule == nil || d.Rule.Name != "no-rm" || !strings.Contains(d.Reason, `"rm -f M"`) {
				t.Errorf("%s: %q: got %s (%s), want deny by no-rm naming rm -f M", mode, cmd, d.Action, d.Reason)
			}
		}
	}
}

// splitRenders is each part of a command line as render shows it, with
// the note of an unknown part in braces.
func splitRenders(cmd string) string {
	var got []string
	for _, pt := range splitCommand(cmd) {
		r := render(pt)
		if _, ok := pt.program.(unknown); ok {
			r = pt.via + ": ? {" + pt.note + "}"
		}
		got = append(got, r)
	}
	return strings.Join(got, " | ")
}

func runSplit(t *testing.T, tests [][2]string) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc[0], func(t *testing.T) {
			if got := splitRenders(tc[0]); got != tc[1] {
				t.Errorf("splitCommand(%q)\n got %s\nwant %s", tc[0], got, tc[1])
			}
		})
	}
}

// Programs fed to a shell or an interpreter on its input.
func TestSplitFedInput(t *testing.T) {
	runSplit(t, [][2]string{
		{`echo "rm -f M" | sh`, `echo rm -f M | sh | sh reading its input: rm -f M`},
		{`echo -n rm | bash`, `echo -n rm | bash | bash reading its input: rm`},
		{`printf '%s\n' 'rm -f M' 'ls' | sh`, `printf %s\n rm -f M ls | sh | sh reading its input: rm -f M | sh reading its input: ls`},
		{`printf 'rm -f M\n' | sh`, `printf rm -f M\n | sh | sh reading its input: rm -f M`},
		{`echo rm | cat | cat - | sh`, `echo rm | cat | cat - | sh | sh reading its input: rm`},
		{"cat <<EOF | sh\nrm -f M\nEOF", `cat | sh | sh reading its input: rm -f M`},
		{`echo 'rm x' | (sh)`, `echo rm x | sh | sh reading its input: rm x`},
		{`echo rm | { ls; sh -s; }`, `echo rm | ls | sh -s | sh reading its input: rm`},
		{`echo rm | ls $(sh)`, `echo rm | ls ?$(sh) | sh | sh reading its input: rm`},
		{`echo rm | sudo -u root sh`, `echo rm | sudo -u root sh | sudo: sh | sudo > sh reading its input: rm`},
		{`echo rm | bash -c 'sh'`, `echo rm | bash -c sh | bash -c: sh | bash -c > sh reading its input: rm`},
		{`echo rm | sh -s -- a b`, `echo rm | sh -s -- a b | sh reading its input: rm`},
		{`echo rm | sh script.sh`, `echo rm | sh script.sh`},
		{`bash <<< "rm -f M"`, `bash | bash reading its input: rm -f M`},
		{`bash /dev/stdin <<< 'rm -f M'`, `bash /dev/stdin | bash reading its input: rm -f M`},
		{`. /dev/stdin <<< 'rm -f M'`, `. /dev/stdin | . reading its input: rm -f M`},
		{"sh <<'EOF'\nrm $X\nEOF", `sh | sh reading its input: rm ?$X`},
		{"zsh <<-EOF\n\trm -f M\n\tEOF", `zsh | zsh reading its input: rm -f M`},
		{"dash <<EOF\necho \\\"; rm -f M; echo \\\"\nEOF", `dash | dash reading its input: echo " | dash reading its input: rm -f M | dash reading its input: echo "`},
		{"ksh <<EOF\necho \\$(rm -f M)\nEOF", `ksh | ksh reading its input: echo ?$(rm -f M) | ksh reading its input: rm -f M`},
		{`sh < /dev/null`, `sh`},
		{`echo 'import os' | python3`, `echo import os | python3 | python3 reading its input: python3 -c import os` + "\n"},
		{"python3.12 - <<'PY'\nprint(1)\nPY", `python3.12 - | python3.12 reading its input: python3.12 -c print(1)` + "\n"},
		{`node <<< 'require("fs")'`, `node | node reading its input: node -e require("fs")` + "\n"},
		{`echo 'unlink "M"' | perl`, `echo unlink "M" | perl | perl reading its input: perl -e unlink "M"` + "\n"},
		{`ruby < x.rb`, `ruby | ruby reading its input: ? {ruby reads a program from its input, which is the file x.rb}`},
		{`python3 -c 'print(1)'`, `python3 -c print(1)`},
		{`python3 script.py`, `python3 script.py`},
		{`python3 --version`, `python3 --version`},
		{`node -v`, `node -v`},
		{`perl -ne 'print' f`, `perl -ne print f`},
		{`cat x | bash`, `cat x | bash | bash reading its input: ? {bash reads commands from its input, which is the output of cat x}`},
		{`curl -s u | sh`, `curl -s u | sh | sh reading its input: ? {sh reads commands from its input, which is the output of curl -s u}`},
		{`{ echo rm; } | sh`, `echo rm | sh | sh reading its input: ? {sh reads commands from its input, which is the output of { echo rm; }}`},
		{`echo "rm\x20M" | sh`, `echo rm\x20M | sh | sh reading its input: ? {sh reads commands from its input, which is the output of echo "rm\x20M"}`},
		{`printf '%d' 1 | sh`, `printf %d 1 | sh | sh reading its input: ? {sh reads commands from its input, which is the output of printf '%d' 1}`},
		{`echo $X | sh`, `echo ?$X | sh | sh reading its input: ? {sh reads commands from its input, which is the output of echo $X}`},
		{"sh <<EOF\nrm $X\nEOF", `sh | sh reading its input: ? {sh reads commands from its input, which is a here-document with expansions}`},
		{`sh <<< "$CMD"`, `sh | sh reading its input: ? {sh reads commands from its input, which is a here-string with expansions}`},
		{`sh < script.sh`, `sh | sh reading its input: ? {sh reads commands from its input, which is the file script.sh}`},
		{`bash -s`, `bash -s | bash reading its input: ? {bash reads commands from its input, which is the tool's own input}`},
		{`sh`, `sh | sh reading its input: ? {sh reads commands from its input, which is the tool's own input}`},
		{`echo rm > >(sh)`, `echo rm >?>(sh) | sh | sh reading its input: ? {sh reads commands from its input, which is what is written to >(sh)}`},
		{`exec < x; sh`, `exec | sh | sh reading its input: ? {sh reads commands from its input, which is redirected by exec}`},
		{`echo rm | sh 0<&3`, `echo rm | sh | sh reading its input: ? {sh reads commands from its input, which is descriptor 3}`},
		{`echo sh | sh`, `echo sh | sh | sh reading its input: sh | sh reading its input > sh reading its input: ? {sh reads commands from its input, which is the rest of the input it was read from}`},
		{`source <(echo rm)`, `source ?<(echo rm) | source: ? {it runs commands made only when the command runs: <(echo rm)} | echo rm`},
		{`source venv/bin/activate`, `source venv/bin/activate`},
	})
}

// trap bodies, variables that run code, and the wrappers of issue 12.
func TestSplitHiddenCommands(t *testing.T) {
	runSplit(t, [][2]string{
		{`trap 'rm -f M' EXIT`, `trap rm -f M EXIT | trap: rm -f M`},
		{`trap -- 'rm -f M' INT TERM`, `trap -- rm -f M INT TERM | trap: rm -f M`},
		{`trap "$X" EXIT`, `trap ?"$X" EXIT | trap: ? {a word of the wrapped command or of its options is not a literal word}`},
		{`trap -- "$X" EXIT`, `trap -- ?"$X" EXIT | trap: ? {the command trap runs is not a literal string}`},
		{`trap - INT`, `trap - INT`},
		{`trap INT`, `trap INT`},
		{`trap 2 INT`, `trap 2 INT`},
		{`trap -p`, `trap -p`},
		{`PROMPT_COMMAND='rm -f M' bash -i`, `PROMPT_COMMAND=: rm -f M | bash -i | bash reading its input: ? {bash reads commands from its input, which is the tool's own input}`},
		{`export PROMPT_COMMAND="rm -f M"`, `export PROMPT_COMMAND=rm -f M | export PROMPT_COMMAND=: rm -f M`},
		{`export "PROMPT_COMMAND=rm -f M"`, `export PROMPT_COMMAND=rm -f M | export PROMPT_COMMAND=: rm -f M`},
		{`PROMPT_COMMAND+='; rm'`, `PROMPT_COMMAND=: ? {PROMPT_COMMAND holds a command line that is not a literal string}`},
		{`GIT_PAGER=cat git log`, `GIT_PAGER=: cat | git log`},
		{"shopt -s expand_aliases\nalias ll='rm -f M'\nll", `shopt -s expand_aliases | alias ll=rm -f M | alias ll=: rm -f M | ll`},
		{`alias x="$C"`, `alias ?x="$C" | alias x=: ? {the alias x runs a command that is not a literal string}`},
		{`hash -p /bin/rm ls; ls`, `hash -p /bin/rm ls | hash: ? {it makes a command name run another program} | ls`},
		{`enable -f ./x.so ls`, `enable -f ./x.so ls | enable: ? {it makes a command name run another program}`},
		{`read -r PROMPT_COMMAND < f`, `read -r PROMPT_COMMAND | read PROMPT_COMMAND=: ? {it sets PROMPT_COMMAND, which can make programs run code, to text the policy does not work out}`},
		{`printf -v PAGER '%s' x`, `printf -v PAGER %s x | printf PAGER=: ? {it sets PAGER, which can make programs run code, to text the policy does not work out}`},
		{`printf '%s\n' PAGER`, `printf %s\n PAGER`},
		{`read -r line`, `read -r line`},
		{`declare -n r=PROMPT_COMMAND`, `declare -n r=PROMPT_COMMAND | declare r: ? {r is another name for PROMPT_COMMAND, which can make programs run code}`},
		{`coproc sh`, `sh | sh reading its input: ? {sh reads commands from its input, which is what is written to the coprocess}`},
		{`GIT_SSH_COMMAND="$X" git fetch`, `GIT_SSH_COMMAND=: ? {GIT_SSH_COMMAND holds a command line that is not a literal string} | git fetch`},
		{`BASH_ENV=./x.sh bash -c true`, `BASH_ENV=: ? {setting BASH_ENV can make programs run code the policy cannot see} | bash -c true | bash -c: true`},
		{`LD_PRELOAD=./x.so ls`, `LD_PRELOAD=: ? {setting LD_PRELOAD can make programs run code the policy cannot see} | ls`},
		{`PS4='$(rm -f M)' bash -xc true`, `PS4=: ? {setting PS4 can make programs run code the policy cannot see} | bash -xc true | bash -c: true`},
		{`declare -x LD_LIBRARY_PATH=.`, `declare -x LD_LIBRARY_PATH=. | declare LD_LIBRARY_PATH=: ? {setting LD_LIBRARY_PATH can make programs run code the policy cannot see}`},
		{`export ENV`, `export ENV | export ENV: ? {it declares ENV, whose value is set elsewhere and can make programs run code}`},
		{`export $(cat .env)`, `export ?$(cat .env) | export: ? {it sets a variable named only when the command runs: $(cat .env)} | cat .env`},
		{`export -p`, `export -p`},
		{`export GOFLAGS=-mod=mod PATH=/x`, `export GOFLAGS=-mod=mod PATH=/x`},
		{`env BASH_FUNC_ls%%='() { rm; }' bash -c ls`, `env BASH_FUNC_ls%%=() { rm; } bash -c ls | env BASH_FUNC_ls%%=: ? {setting BASH_FUNC_ls%% can make programs run code the policy cannot see} | env: bash -c ls | env > bash -c: ls`},
		{`env "X$N=1" ls`, `env ?"X$N=1" ls | env: ? {a word of the wrapped command or of its options is not a literal word}`},
		{`env 'BASH_FUNC_ls=() { rm; }' bash -c ls`, `env BASH_FUNC_ls=() { rm; } bash -c ls | env BASH_FUNC_ls=: ? {setting BASH_FUNC_ls can make programs run code the policy cannot see} | env: bash -c ls | env > bash -c: ls`},
		{`env PAGER='rm -f M' man ls`, `env PAGER=rm -f M man ls | env PAGER=: rm -f M | env: man ls`},
		{`sudo LD_PRELOAD=x.so ls`, `sudo LD_PRELOAD=x.so ls | sudo LD_PRELOAD=: ? {setting LD_PRELOAD can make programs run code the policy cannot see} | sudo: ls`},
		{`strace -f -E LD_PRELOAD=x.so ls`, `strace -f -E LD_PRELOAD=x.so ls | strace LD_PRELOAD=: ? {setting LD_PRELOAD can make programs run code the policy cannot see} | strace: ls`},
	})
}

func TestSplitNewWrappers(t *testing.T) {
	runSplit(t, [][2]string{
		{`strace -o /dev/null rm -f M`, `strace -o /dev/null rm -f M | strace: rm -f M`},
		{`strace -ff -e trace=file -s 100 -p 1 rm`, `strace -ff -e trace=file -s 100 -p 1 rm | strace: rm`},
		{`strace --output=x --string-limit 9 rm`, `strace --output=x --string-limit 9 rm | strace: rm`},
		{`strace -E "$V" rm`, `strace -E ?"$V" rm | strace: ? {strace -E sets a variable named only when the command runs: "$V"}`},
		{`strace $OPTS rm`, `strace ?$OPTS rm | strace: ? {a word of the wrapped command or of its options is not a literal word}`},
		{`ltrace -o x -l libc.so rm`, `ltrace -o x -l libc.so rm | ltrace: rm`},
		{`flock L rm -f M`, `flock L rm -f M | flock: rm -f M`},
		{`flock -x -w 5 /tmp/l rm`, `flock -x -w 5 /tmp/l rm | flock: rm`},
		{`flock L -c 'rm -f M'`, `flock L -c rm -f M | flock -c: rm -f M`},
		{`flock --command='rm -f M' L`, `flock --command=rm -f M L | flock -c: rm -f M`},
		{`flock 9`, `flock 9`},
		{`flock $L rm`, `flock ?$L rm | flock: ? {a word of the wrapped command or of its options is not a literal word}`},
		{`script -qc 'rm -f M' /dev/null`, `script -qc rm -f M /dev/null | script -c: rm -f M`},
		{`script -q -c 'rm -f M' log`, `script -q -c rm -f M log | script -c: rm -f M`},
		{`script --command 'rm -f M'`, `script --command rm -f M | script -c: rm -f M`},
		{`script -qcrm`, `script -qcrm | script -c: rm`},
		{`echo rm | script -q /dev/null`, `echo rm | script -q /dev/null | script reading its input: rm`},
		{`unbuffer -p rm x`, `unbuffer -p rm x | unbuffer: rm x`},
		{`stdbuf -oL -e0 rm`, `stdbuf -oL -e0 rm | stdbuf: rm`},
		{`nice -n 5 ionice -c 3 setsid rm`, `nice -n 5 ionice -c 3 setsid rm | nice: ionice -c 3 setsid rm | nice > ionice: setsid rm | nice > ionice > setsid: rm`},
		{`chroot /srv rm x`, `chroot /srv rm x | chroot: rm x`},
		{`chroot --userspec u:g /srv rm`, `chroot --userspec u:g /srv rm | chroot: rm`},
		{`echo rm | chroot /srv`, `echo rm | chroot /srv | chroot reading its input: rm`},
		{`sudo -s rm x`, `sudo -s rm x | sudo: rm x`},
		{`echo rm | sudo -i`, `echo rm | sudo -i | sudo reading its input: rm`},
		{`sudo -l rm`, `sudo -l rm`},
		{`sudo -u root -- rm`, `sudo -u root -- rm | sudo: rm`},
		{`doas -u sam rm`, `doas -u sam rm | doas: rm`},
		{`echo rm | doas -s`, `echo rm | doas -s | doas reading its input: rm`},
		{`echo rm | su`, `echo rm | su | su reading its input: rm`},
		{`runuser -u x -- rm`, `runuser -u x -- rm | runuser reading its input: ? {runuser reads commands from its input, which is the tool's own input}`},
		{`parallel ::: 'rm -f M' ls`, `parallel ::: rm -f M ls | parallel :::: rm -f M | parallel :::: ls`},
		{`parallel rm ::: a b`, `parallel rm ::: a b | parallel: rm a | parallel: rm b`},
		{`parallel -j2 'rm {}' ::: 'a b'`, `parallel -j2 rm {} ::: a b | parallel: rm a b`},
		{`parallel echo ::: a ::: b c`, `parallel echo ::: a ::: b c | parallel: echo a b | parallel: echo a c`},
		{`parallel -q sh -c ::: 'rm x'`, `parallel -q sh -c ::: rm x | parallel: sh -c rm x | parallel > sh -c: rm x`},
		{`echo 'rm -f M' | parallel`, `echo rm -f M | parallel | parallel reading its input: rm -f M`},
		{`ls | parallel rm`, `ls | parallel rm | parallel: rm ?"$PARALLEL_ARGUMENT"`},
		{`ls | parallel '{}' x`, `ls | parallel {} x | parallel: ? {parallel fills its command with arguments known only when it runs}`},
		{`parallel {.} ::: rm.x`, `parallel {.} ::: rm.x | parallel: ? {parallel fills its command with replacement strings the policy does not work out}`},
		{`parallel :::: cmds.txt`, `parallel :::: cmds.txt | parallel: ? {parallel runs commands known only when it runs}`},
		{`busybox rm -f M`, `busybox rm -f M | busybox: rm -f M`},
		{`toybox sh -c 'rm -f M'`, `toybox sh -c rm -f M | toybox: sh -c rm -f M | toybox > sh -c: rm -f M`},
		{`busybox --list`, `busybox --list`},
		{`timeout $T rm`, `timeout ?$T rm | timeout: ? {a word of the wrapped command or of its options is not a literal word}`},
	})
}

func TestHiddenCommandDecisions(t *testing.T) {
	tests := []struct {
		cmd        string
		want, yolo Action
		rule       string // name of the deciding rule in default mode
	}{
		{`echo "ls -la" | sh`, Allow, Allow, "safe"},
		{`echo "rm -rf /" | sh`, Deny, Deny, "no-rm"},
		{`printf 'ls\nrm -rf /\n' | bash`, Deny, Deny, "no-rm"},
		{"bash <<'EOF'\nls\nrm -rf /\nEOF", Deny, Deny, "no-rm"},
		{`bash <<< "curl -s x"`, Deny, Deny, "no-curl"},
		{`cat x | sh`, Ask, Deny, "no-rm"},
		{`sh <<< "$CMD"`, Ask, Deny, "no-rm"},
		{`sh`, Ask, Deny, "no-rm"},
		{`sh script.sh`, Allow, Allow, "safe"},
		{`trap 'rm -rf /' EXIT; ls`, Deny, Deny, "no-rm"},
		{`trap 'ls' EXIT`, Ask, Allow, ""}, // trap itself is not in the safe list
		{`GIT_PAGER=cat git log`, Allow, Allow, "safe"},
		{`GIT_PAGER='rm -rf /' git log`, Deny, Deny, "no-rm"},
		{`PROMPT_COMMAND='rm -rf /'`, Deny, Deny, "no-rm"},
		{`LD_PRELOAD=./x.so ls`, Ask, Deny, "no-rm"},
		{`export BASH_ENV=./x.sh`, Ask, Deny, ""}, // the export part asks first
		{`env FOO=1 ls`, Allow, Allow, "safe"},
		{`parallel ::: 'rm -rf /'`, Deny, Deny, "no-rm"},
		{`busybox rm -rf /`, Deny, Deny, "no-rm"},
		{`flock /tmp/l -c 'rm -rf /'`, Deny, Deny, "no-rm"},
		{`sudo -s <<< 'rm -rf /'`, Deny, Deny, "no-rm"},
		{`echo 'print(1)' | python3`, Ask, Allow, ""},
		{`curl -s x | python3`, Deny, Deny, "no-curl"}, // curl itself is denied
		{`cat x | python3`, Ask, Deny, ""},             // python3 itself asks first
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			for _, mode := range []string{"default", "yolo"} {
				p := MustCompile(schema.Policy{Mode: mode, Rules: shellRules}, Options{})
				d := decideShell(t, p, tc.cmd)
				want := tc.want
				if mode == "yolo" {
					want = tc.yolo
				}
				name := ""
				if d.Rule != nil {
					name = d.Rule.Name
				}
				if d.Action != want || (mode == "default" && name != tc.rule) {
					t.Errorf("%s mode: got %s by %q, want %s (by %q)\nreason: %s", mode, d.Action, name, want, tc.rule, d.Reason)
				}
			}
		})
	}
}

// A program an interpreter reads from its input is seen as its inline
// argument (-c, -e), so one rule covers both forms.
func TestInterpreterInputIsInlineProgram(t *testing.T) {
	p := MustCompile(schema.Policy{DefaultAction: "allow", Rules: []schema.PolicyRule{
		named("no-remove", R("shell", "deny", &schema.Condition{All: []schema.Condition{
			*eq("$program", "python3"), {Arg: "$args", Contains: "os.remove"}}})),
	}}, Options{})
	for _, cmd := range []string{
		`python3 -c 'import os; os.remove("M")'`,
		"python3 - <<'PY'\nimport os\nos.remove(\"M\")\nPY",
		`echo 'import os; os.remove("M")' | python3`,
	} {
		if d := decideShell(t, p, cmd); d.Action != Deny {
			t.Errorf("%q: got %s (%s)", cmd, d.Action, d.Reason)
		}
	}
}

// An option's value that is not literal must not crash a wrapper.
func TestWrapperOptionValuesNotLiteral(t *testing.T) {
	for _, c := range []string{"watch -n $N x", "doas -u $U rm", "strace -o $F rm", "parallel -j $J rm ::: a",
		"xargs -n $N rm", "sudo -u $U rm", "ltrace -o $F rm", "flock -w $W l rm", "script -E $E -c rm", "timeout -s $S 5 rm"} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%q panics: %v", c, r)
				}
			}()
			if got := splitRenders(c); !strings.Contains(got, "rm") && !strings.Contains(got, "x") {
				t.Errorf("%q: %s", c, got)
			}
		}()
	}
}

func TestPrintfText(t *testing.T) {
	tests := []struct {
		args []any
		want string
		ok   bool
	}{
		{[]any{`rm -f M\n`}, "rm -f M\n", true},
		{[]any{`%s\n`, "a", "b"}, "a\nb\n", true},
		{[]any{`%s %s;`, "a"}, "a ;", true},
		{[]any{`100%%`}, "100%", true},
		{[]any{"--", `%s`, "x"}, "x", true},
		{[]any{`%d`, "1"}, "", false},
		{[]any{`\x72m`}, "", false},
		{[]any{`%b`, `r\x6d`}, "", false},
		{[]any{"-v", "X", "rm"}, "", false},
		{[]any{unknown{text: "$F"}}, "", false},
		{nil, "", false},
	}
	for _, tc := range tests {
		got, ok := printfText(tc.args)
		if got != tc.want || ok != tc.ok {
			t.Errorf("printfText(%q) = %q, %v; want %q, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

// Text that multiplies at each level (parallel's combinations, printf's
// reused format) is bounded: the decision stays fast and is not an allow.
func TestHiddenTextIsBounded(t *testing.T) {
	args := strings.Repeat(" a", 64)
	cmd := "ls"
	for range 5 { // each level runs the one below 64 times: 64^5 without a bound
		format := strings.NewReplacer("%", "%%", `\`, `\\`).Replace(cmd) + `\n%s\n`
		cmd = "printf " + quoteWord(format) + args + " | sh"
	}
	start := time.Now()
	pts := splitCommand(cmd)
	p := MustCompile(schema.Policy{Rules: shellRules}, Options{})
	if d := decideShell(t, p, cmd); d.Action == Allow {
		t.Errorf("got %s: %s", d.Action, d.Reason)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("split and decide took %s", el)
	}
	t.Logf("%d parts, split and decide in %s", len(pts), time.Since(start))
	bounded := false
	for _, pt := range pts {
		bounded = bounded || strings.Contains(pt.note, "hides more")
	}
	if !bounded {
		t.Errorf("%d parts, none is the budget's unknown part", len(pts))
	}
	pf := []any{strings.Repeat("x", 1<<16) + "%s"}
	for range 32 {
		pf = append(pf, "a")
	}
	if _, ok := printfText(pf); ok {
		t.Error("printf output over the budget was computed")
	}
}
