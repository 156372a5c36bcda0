package policy

import (
	"strings"
	"testing"
)

// render shows a part as "via: program arg arg", unknown values as ?text.
func render(pt part) string {
	var b strings.Builder
	if pt.via != "" {
		b.WriteString(pt.via + ": ")
	}
	if pt.broken {
		return b.String() + "BROKEN"
	}
	b.WriteString(show(pt.program))
	if args, ok := pt.args.([]any); ok {
		for _, a := range args {
			b.WriteString(" " + show(a))
		}
	} else {
		b.WriteString(" " + show(pt.args))
	}
	for _, w := range pt.writes {
		b.WriteString(" >" + show(w))
	}
	return b.String()
}

func show(v any) string {
	if u, ok := v.(unknown); ok {
		return "?" + u.text
	}
	return v.(string)
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"ls -la", []string{"ls -la"}},
		{"ls && rm -rf /", []string{"ls", "rm -rf /"}},
		{"ls || rm -rf /", []string{"ls", "rm -rf /"}},
		{"ls; rm -rf /", []string{"ls", "rm -rf /"}},
		{"ls\nrm -rf /", []string{"ls", "rm -rf /"}},
		{"cat x | rm -rf /", []string{"cat x", "rm -rf /"}},
		{"echo $(rm -rf /)", []string{"echo ?$(rm -rf /)", "rm -rf /"}},
		{"echo `rm -rf /`", []string{"echo ?`rm -rf /`", "rm -rf /"}},
		{"(rm -rf /)", []string{"rm -rf /"}},
		{"{ rm -rf /; }", []string{"rm -rf /"}},
		{"diff <(rm -rf /) b", []string{"diff ?<(rm -rf /) b", "rm -rf /"}},
		{"echo hi > /etc/passwd", []string{"echo hi >/etc/passwd"}},
		{"echo hi 2>&1 >>log", []string{"echo hi >log"}},
		{"cat < $(rm -rf /)", []string{"cat", "rm -rf /"}},
		{"> out", []string{" >out"}},
		{"if true; then rm -rf /; fi", []string{"true", "rm -rf /"}},
		{"for f in *; do rm $f; done", []string{"rm ?$f"}},
		{"f() { rm -rf /; }; f", []string{"rm -rf /", "f"}},
		{"X=$(rm -rf /)", []string{"rm -rf /"}},
		{"export X=$(rm -rf /)", []string{"export ?X=$(rm -rf /)", "rm -rf /"}},
		{"FOO=1 rm -rf /", []string{"rm -rf /"}},
		{"/bin/rm -rf /", []string{"rm -rf /"}},
		{`\rm -rf /`, []string{"rm -rf /"}},
		{`"r"'m' -rf /`, []string{"rm -rf /"}},
		{`$CMD -rf /`, []string{"?$CMD -rf /"}},
		{"rm -rf ~", []string{"rm -rf ?~"}},
		{"rm -rf /*", []string{"rm -rf ?/*"}},
		{"rm {a,b}", []string{"rm ?{a,b}"}},
		{"[ -f x ]", []string{"[ -f x ]"}},
		{"time rm -rf /", []string{"rm -rf /"}},
		{"! rm -rf /", []string{"rm -rf /"}},
		{"rm -rf / &", []string{"rm -rf /"}},
		{"echo \"$(rm -rf /)\"", []string{`echo ?"$(rm -rf /)"`, "rm -rf /"}},
		{"cat <<EOF\n$(rm -rf /)\nEOF", []string{"cat", "rm -rf /"}},
		{"echo ${X:-$(rm -rf /)}", []string{"echo ?${X:-$(rm -rf /)}", "rm -rf /"}},
		{"ls &&", []string{"BROKEN"}},
		{"echo 'unterminated", []string{"BROKEN"}},
		{"", nil},
		{"# only a comment", nil},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			var got []string
			for _, pt := range splitCommand(tc.cmd) {
				got = append(got, render(pt))
			}
			if strings.Join(got, " | ") != strings.Join(tc.want, " | ") {
				t.Errorf("splitCommand(%q)\n got %q\nwant %q", tc.cmd, got, tc.want)
			}
		})
	}
}

func TestSplitWrappers(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{`bash -c "rm -rf /"`, []string{"bash -c rm -rf /", "bash -c: rm -rf /"}},
		{`sh -lc 'ls; rm -rf /'`, []string{"sh -lc ls; rm -rf /", "sh -c: ls", "sh -c: rm -rf /"}},
		{`bash -c "$X"`, []string{"bash -c ?\"$X\"", `bash -c: ?bash -c "$X" ?bash -c "$X" >?bash -c "$X"`}},
		{`bash script.sh`, []string{"bash script.sh"}},
		{`bash -o pipefail -c "rm x"`, []string{"bash -o pipefail -c rm x", "bash -c: rm x"}},
		{`eval "rm -rf /"`, []string{"eval rm -rf /", "eval: rm -rf /"}},
		{`eval rm '-rf' /`, []string{"eval rm -rf /", "eval: rm -rf /"}},
		{`eval "$X"`, []string{`eval ?"$X"`, `eval: ?eval "$X" ?eval "$X" >?eval "$X"`}},
		{`xargs rm`, []string{"xargs rm", "xargs: rm ?(input)"}},
		{`xargs -0 -n 1 rm -f`, []string{"xargs -0 -n 1 rm -f", "xargs: rm -f ?(input)"}},
		{`xargs`, []string{"xargs", "xargs: echo ?(input)"}},
		{`find . -exec rm -rf {} \;`, []string{"find . -exec rm -rf {} ;", "find -exec: rm -rf ?{}"}},
		{`find . -name x -execdir sh -c 'rm "$1"' _ {} +`, []string{`find . -name x -execdir sh -c rm "$1" _ {} +`, `find -execdir: sh -c rm "$1" _ ?{}`, `find -execdir > sh -c: rm ?"$1"`}},
		{`env FOO=1 rm -rf /`, []string{"env FOO=1 rm -rf /", "env: rm -rf /"}},
		{`env -i -u HOME FOO=$X rm -rf /`, []string{"env -i -u HOME ?FOO=$X rm -rf /", "env: rm -rf /"}},
		{`env -S "rm -rf /"`, []string{"env -S rm -rf /", "env -S: rm -rf /"}},
		{`env`, []string{"env"}},
		{`nohup rm -rf / &`, []string{"nohup rm -rf /", "nohup: rm -rf /"}},
		{`timeout -s KILL 5 rm -rf /`, []string{"timeout -s KILL 5 rm -rf /", "timeout: rm -rf /"}},
		{`command rm -rf /`, []string{"command rm -rf /", "command: rm -rf /"}},
		{`command -v rm`, []string{"command -v rm"}},
		{`sudo -u root rm -rf /`, []string{"sudo -u root rm -rf /", "sudo: rm -rf /"}},
		{`sudo $FLAGS rm`, []string{"sudo ?$FLAGS rm", "sudo: ?sudo $FLAGS rm ?sudo $FLAGS rm >?sudo $FLAGS rm"}},
		{`nice -n 10 rm -rf /`, []string{"nice -n 10 rm -rf /", "nice: rm -rf /"}},
		{`nice -10 rm`, []string{"nice -10 rm", "nice: rm"}},
		{`/usr/bin/time -f %e rm x`, []string{"time -f %e rm x", "time: rm x"}},
		{`sudo env bash -c "rm -rf /"`, []string{`sudo env bash -c rm -rf /`, "sudo: env bash -c rm -rf /", "sudo > env: bash -c rm -rf /", "sudo > env > bash -c: rm -rf /"}},
		{`watch -n 1 rm x`, []string{"watch -n 1 rm x", "watch: rm x"}},
		{`su -c "rm -rf /" root`, []string{"su -c rm -rf / root", "su -c: rm -rf /"}},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			var got []string
			for _, pt := range splitCommand(tc.cmd) {
				got = append(got, render(pt))
			}
			if strings.Join(got, " | ") != strings.Join(tc.want, " | ") {
				t.Errorf("splitCommand(%q)\n got %q\nwant %q", tc.cmd, got, tc.want)
			}
		})
	}
}
