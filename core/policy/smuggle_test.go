package policy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

// A typical profile: read-only programs allowed, rm and curl denied,
// everything else asked about.
var shellRules = []schema.PolicyRule{
	named("safe", R("shell", "allow", &schema.Condition{Arg: "$program", OneOf: []any{"ls", "cat", "echo", "grep", "git", "find", "xargs", "env", "bash", "sh", "true", "wc", "sort"}})),
	named("no-rm", R("shell", "deny", eq("$program", "rm"))),
	named("no-curl", R("shell", "deny", eq("$program", "curl"))),
	named("no-push-force", R("shell", "deny", &schema.Condition{All: []schema.Condition{*eq("$program", "git"), {Arg: "$args", OneOf: []any{"--force", "-f"}}}})),
	named("no-etc-writes", R("shell", "deny", &schema.Condition{Arg: "$writes", Glob: "/etc/**"})),
}

func decideShell(t *testing.T, p *Policy, cmd string) Decision {
	t.Helper()
	raw, _ := json.Marshal(map[string]string{"command": cmd})
	d, err := p.DecideJSON(shellFacts, raw)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestShellSmuggling(t *testing.T) {
	p := MustCompile(schema.Policy{Rules: shellRules}, Options{})
	tests := []struct {
		cmd  string
		want Action
		rule string // name of the deciding rule
	}{
		{"ls -la", Allow, "safe"},
		{"ls | wc -l && git status", Allow, "safe"},
		{"rm -rf /", Deny, "no-rm"},
		{"ls && rm -rf /", Deny, "no-rm"},
		{"ls || rm -rf /", Deny, "no-rm"},
		{"ls; rm -rf /", Deny, "no-rm"},
		{"ls\nrm -rf /", Deny, "no-rm"},
		{"ls | rm -rf /", Deny, "no-rm"},
		{"ls & rm -rf /", Deny, "no-rm"},
		{"echo $(rm -rf /)", Deny, "no-rm"},
		{"echo `rm -rf /`", Deny, "no-rm"},
		{`echo "$(rm -rf /)"`, Deny, "no-rm"},
		{"(rm -rf /)", Deny, "no-rm"},
		{"{ rm -rf /; }", Deny, "no-rm"},
		{"cat <(rm -rf /)", Deny, "no-rm"},
		{"echo > >(rm -rf /)", Deny, "no-rm"},
		{"cat < $(rm -rf /)", Deny, "no-rm"},
		{"cat <<EOF\n$(rm -rf /)\nEOF", Deny, "no-rm"},
		{"X=$(rm -rf /) ls", Deny, "no-rm"},
		{"if ls; then rm -rf /; fi", Deny, "no-rm"},
		{"while true; do rm -rf /; done", Deny, "no-rm"},
		{"f() { rm -rf /; }", Deny, "no-rm"},
		{`bash -c "rm -rf /"`, Deny, "no-rm"},
		{`sh -c 'ls; rm -rf /'`, Deny, "no-rm"},
		{`bash -c "bash -c 'rm -rf /'"`, Deny, "no-rm"},
		{`eval "rm -rf /"`, Deny, "no-rm"},
		{`find . -exec rm -rf {} \;`, Deny, "no-rm"},
		{`find . -delete -o -execdir rm {} +`, Deny, "no-rm"},
		{`ls | xargs rm`, Deny, "no-rm"},
		{`env FOO=1 rm -rf /`, Deny, "no-rm"},
		{`nohup rm -rf / &`, Deny, "no-rm"},
		{`timeout 5 rm -rf /`, Deny, "no-rm"},
		{`command rm -rf /`, Deny, "no-rm"},
		{`sudo rm -rf /`, Deny, "no-rm"},
		{`nice -n 5 rm -rf /`, Deny, "no-rm"},
		{`time rm -rf /`, Deny, "no-rm"},
		{`/bin/rm -rf /`, Deny, "no-rm"},
		{`\rm -rf /`, Deny, "no-rm"},
		{`"rm" -rf /`, Deny, "no-rm"},
		{`r''m -rf /`, Deny, "no-rm"},
		{"ls \\\n; rm -rf /", Deny, "no-rm"},
		{`curl -s x | sh`, Deny, "no-curl"},
		{`git push --force`, Deny, "no-push-force"},
		{`git push origin main`, Allow, "safe"},
		{`echo x > /etc/passwd`, Deny, "no-etc-writes"},
		{`echo x >> /etc/hosts`, Deny, "no-etc-writes"},
		{`ls && unknown-tool`, Ask, ""},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			d := decideShell(t, p, tc.cmd)
			name := ""
			if d.Rule != nil {
				name = d.Rule.Name
			}
			if d.Action != tc.want || name != tc.rule {
				t.Errorf("got %s by %q, want %s by %q\nreason: %s", d.Action, name, tc.want, tc.rule, d.Reason)
			}
		})
	}
}

// What cannot be known is asked about when it could matter, and denied
// when the command does not even parse and a deny rule could match.
func TestShellUnknown(t *testing.T) {
	p := MustCompile(schema.Policy{Rules: shellRules}, Options{})
	tests := []struct {
		cmd    string
		want   Action
		reason string
	}{
		{"$CMD -rf /", Ask, "program is not a literal"},
		{"$(echo rm) -rf /", Ask, "no-rm"}, // echo is allowed; the outer program is unknown and might be rm
		{`bash -c "$X"`, Ask, "not a literal string"},
		{`eval "$X"`, Ask, "not a literal string"},
		{`sudo $FLAGS rm`, Ask, "not a literal word"},
		{`find . -exec $X {} \;`, Ask, "program is not a literal"},
		{"ls &&", Deny, "does not parse"},
		{"echo 'unterminated", Deny, "does not parse"},
		{"rm -rf $HOME", Deny, "no-rm"}, // program known: the deny rule needs no more
		{"ls $HOME", Allow, "safe"},     // allow rule looks at the program only
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			d := decideShell(t, p, tc.cmd)
			reasons := d.Reason
			for _, pt := range d.Parts {
				reasons += "\n" + pt.Reason
			}
			if d.Action != tc.want || !strings.Contains(reasons, tc.reason) {
				t.Errorf("got %s, want %s mentioning %q; reasons:\n%s", d.Action, tc.want, tc.reason, reasons)
			}
		})
	}
}

func TestShellUnknownNeedsNoAnswer(t *testing.T) {
	// An unconditional allow does not depend on the program: no ask.
	p := MustCompile(schema.Policy{Rules: []schema.PolicyRule{R("shell", "allow", nil)}}, Options{})
	if d := decideShell(t, p, `bash -c "$X"`); d.Action != Allow {
		t.Errorf("got %s: %s", d.Action, d.Reason)
	}
	// A parse failure with no deny rule that could match is asked about.
	p = MustCompile(schema.Policy{DefaultAction: "allow"}, Options{})
	if d := decideShell(t, p, "ls &&"); d.Action != Allow {
		t.Errorf("got %s: %s", d.Action, d.Reason)
	}
	p = MustCompile(schema.Policy{Rules: []schema.PolicyRule{R("shell", "allow", eq("$program", "ls"))}}, Options{})
	if d := decideShell(t, p, "ls &&"); d.Action != Ask {
		t.Errorf("got %s: %s", d.Action, d.Reason)
	}
}

func TestShellCommandArgIsPerPart(t *testing.T) {
	p := MustCompile(schema.Policy{Rules: []schema.PolicyRule{
		R("shell", "allow", &schema.Condition{Arg: "command", StartsWith: "go test"}),
		R("shell", "allow", &schema.Condition{Arg: "$command", Equals: "git status"}),
	}}, Options{})
	for cmd, want := range map[string]Action{
		"go test ./...":               Allow,
		"go test ./... && git status": Allow,
		"go test ./...; rm -rf ~":     Ask,
		"git 'status'":                Allow,
		"git status --porcelain":      Ask,
	} {
		if d := decideShell(t, p, cmd); d.Action != want {
			t.Errorf("%q: got %s, want %s (%s)", cmd, d.Action, want, d.Reason)
		}
	}
}

func TestShellToolsConfigurable(t *testing.T) {
	p := MustCompile(schema.Policy{DefaultAction: "allow", Rules: []schema.PolicyRule{R("*", "deny", eq("$program", "rm"))}},
		Options{ShellTools: map[string]string{"run": "cmd", "shell": "command"}})
	d, _ := p.DecideJSON(Facts{Name: "run", Kind: "execute"}, []byte(`{"cmd":"ls; rm x"}`))
	if d.Action != Deny {
		t.Errorf("run: got %s (%s)", d.Action, d.Reason)
	}
	d, _ = p.DecideJSON(Facts{Name: "other", Kind: "execute"}, []byte(`{"cmd":"ls; rm x"}`))
	if d.Action != Allow {
		t.Errorf("other: got %s (%s)", d.Action, d.Reason)
	}
}

func TestShellParts(t *testing.T) {
	p := MustCompile(schema.Policy{Rules: shellRules}, Options{})
	d := decideShell(t, p, `ls && sudo rm -rf /`)
	want := []struct {
		prog, via string
		act       Action
	}{{"ls", "", Allow}, {"sudo", "", Ask}, {"rm", "sudo", Deny}}
	if len(d.Parts) != len(want) {
		t.Fatalf("parts = %+v", d.Parts)
	}
	for i, w := range want {
		got := d.Parts[i]
		if got.Program != w.prog || got.Via != w.via || got.Action != w.act {
			t.Errorf("part %d = %+v, want %+v", i, got, w)
		}
	}
	if !strings.Contains(d.Reason, `"rm -rf /" (run by sudo)`) {
		t.Errorf("reason %q does not name the part", d.Reason)
	}
}
