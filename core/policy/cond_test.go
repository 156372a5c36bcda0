package policy

import (
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

func TestConditions(t *testing.T) {
	c := func(arg string) schema.Condition { return schema.Condition{Arg: arg} }
	with := func(x schema.Condition, f func(*schema.Condition)) *schema.Condition { f(&x); return &x }
	tests := []struct {
		name  string
		when  *schema.Condition
		args  string
		match bool // the deny rule matches
	}{
		{"equals string", eq("mode", "x"), `{"mode":"x"}`, true},
		{"equals string no", eq("mode", "x"), `{"mode":"y"}`, false},
		{"equals number", eq("n", 3), `{"n":3}`, true},
		{"equals number vs string", eq("n", "3"), `{"n":3}`, false},
		{"equals bool", eq("overwrite", true), `{"overwrite":true}`, true},
		{"equals bool false", eq("overwrite", false), `{"overwrite":false}`, true},
		{"equals object", eq("o", map[string]any{"a": 1}), `{"o":{"a":1}}`, true},
		{"equals whole list", eq("l", []any{"a", "b"}), `{"l":["a","b"]}`, true},
		{"equals whole list differs", eq("l", []any{"a", "b"}), `{"l":["a"]}`, false},
		{"equals element of a list", eq("l", "b"), `{"l":["a","b"]}`, true},
		{"contains", with(c("url"), func(x *schema.Condition) { x.Contains = "evil" }), `{"url":"https://evil.example"}`, true},
		{"contains no", with(c("url"), func(x *schema.Condition) { x.Contains = "evil" }), `{"url":"https://good.example"}`, false},
		{"contains on a number", with(c("n"), func(x *schema.Condition) { x.Contains = "42" }), `{"n":1421}`, true},
		{"startsWith", with(c("path"), func(x *schema.Condition) { x.StartsWith = "/etc/" }), `{"path":"/etc/passwd"}`, true},
		{"startsWith no", with(c("path"), func(x *schema.Condition) { x.StartsWith = "/etc/" }), `{"path":"etc/passwd"}`, false},
		{"matches", with(c("path"), func(x *schema.Condition) { x.Matches = `\.(pem|key)$` }), `{"path":"certs/a.pem"}`, true},
		{"matches is not anchored", with(c("path"), func(x *schema.Condition) { x.Matches = `secret` }), `{"path":"a/secret/b"}`, true},
		{"glob", with(c("path"), func(x *schema.Condition) { x.Glob = "**/*.pem" }), `{"path":"a/b/c.pem"}`, true},
		{"glob no", with(c("path"), func(x *schema.Condition) { x.Glob = "**/*.pem" }), `{"path":"a/b/c.go"}`, false},
		{"glob sees through ..", with(c("path"), func(x *schema.Condition) { x.Glob = ".git/**" }), `{"path":"src/../.git/config"}`, true},
		{"oneOf", with(c("mode"), func(x *schema.Condition) { x.OneOf = []any{"a", "b"} }), `{"mode":"b"}`, true},
		{"oneOf no", with(c("mode"), func(x *schema.Condition) { x.OneOf = []any{"a", "b"} }), `{"mode":"c"}`, false},
		{"oneOf numbers", with(c("n"), func(x *schema.Condition) { x.OneOf = []any{1, 2} }), `{"n":2}`, true},
		{"not", &schema.Condition{Not: eq("mode", "x")}, `{"mode":"y"}`, true},
		{"not of missing arg", &schema.Condition{Not: eq("mode", "x")}, `{}`, true},
		{"any", &schema.Condition{Any: []schema.Condition{*eq("a", "1"), *eq("b", "2")}}, `{"b":"2"}`, true},
		{"any none", &schema.Condition{Any: []schema.Condition{*eq("a", "1"), *eq("b", "2")}}, `{"b":"3"}`, false},
		{"all", &schema.Condition{All: []schema.Condition{*eq("a", "1"), *eq("b", "2")}}, `{"a":"1","b":"2"}`, true},
		{"all one false", &schema.Condition{All: []schema.Condition{*eq("a", "1"), *eq("b", "2")}}, `{"a":"1","b":"3"}`, false},
		{"dotted path", eq("opts.mode", "x"), `{"opts":{"mode":"x"}}`, true},
		{"dotted path missing", eq("opts.mode", "x"), `{"opts":{}}`, false},
		{"dotted path through a non-object", eq("opts.mode", "x"), `{"opts":"x"}`, false},
		{"list index", eq("edits.1.old", "b"), `{"edits":[{"old":"a"},{"old":"b"}]}`, true},
		{"list index out of range", eq("edits.5.old", "b"), `{"edits":[{"old":"a"}]}`, false},
		{"path over every element", with(c("edits.new"), func(x *schema.Condition) { x.Contains = "password" }),
			`{"edits":[{"new":"x"},{"new":"my password"}]}`, true},
		{"deny matches when any path matches", with(c("paths"), func(x *schema.Condition) { x.Glob = "/etc/**" }),
			`{"paths":["src/a","/etc/passwd"]}`, true},
		{"$tool", eq("$tool", "write_file"), `{}`, true},
		{"$kind", eq("$kind", "edit"), `{}`, true},
		{"shell pseudo args are absent for other tools", eq("$program", "rm"), `{}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := MustCompile(schema.Policy{DefaultAction: "allow", Rules: []schema.PolicyRule{R("write_file", "deny", tc.when)}}, Options{})
			d, err := p.DecideJSON(writeFacts, []byte(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Action == Deny; got != tc.match {
				t.Errorf("match = %v, want %v (%s)", got, tc.match, d.Reason)
			}
		})
	}
}

// An allow rule over a list must hold for every element; a deny rule for
// any. "not" flips which.
func TestConditionPolarity(t *testing.T) {
	inSrc := &schema.Condition{Arg: "paths", Glob: "src/**"}
	tests := []struct {
		name string
		rule schema.PolicyRule
		args string
		want Action
	}{
		{"allow: every path inside", R("read_many_files", "allow", inSrc), `{"paths":["src/a","src/b"]}`, Allow},
		{"allow: one path outside", R("read_many_files", "allow", inSrc), `{"paths":["src/a","/etc/passwd"]}`, Ask},
		{"allow: .. escapes", R("read_many_files", "allow", inSrc), `{"paths":["src/../../etc/passwd"]}`, Ask},
		{"allow: empty list", R("read_many_files", "allow", inSrc), `{"paths":[]}`, Allow},
		{"deny not-inside: one outside", R("read_many_files", "deny", &schema.Condition{Not: inSrc}), `{"paths":["src/a","/etc/passwd"]}`, Deny},
		{"deny not-inside: all inside", R("read_many_files", "deny", &schema.Condition{Not: inSrc}), `{"paths":["src/a"]}`, Ask},
		{"allow not-secret: one secret", R("read_many_files", "allow", &schema.Condition{Not: &schema.Condition{Arg: "paths", Glob: "**/*.key"}}),
			`{"paths":["a.txt","b.key"]}`, Ask},
		{"allow not-secret: none secret", R("read_many_files", "allow", &schema.Condition{Not: &schema.Condition{Arg: "paths", Glob: "**/*.key"}}),
			`{"paths":["a.txt","c.txt"]}`, Allow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := MustCompile(schema.Policy{Rules: []schema.PolicyRule{tc.rule}}, Options{})
			d, _ := p.DecideJSON(Facts{Name: "read_many_files", Kind: "read"}, []byte(tc.args))
			if d.Action != tc.want {
				t.Errorf("got %s, want %s (%s)", d.Action, tc.want, d.Reason)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		pol  schema.Policy
		want []string // substrings of the error
	}{
		{"bad regexp names the rule", schema.Policy{Rules: []schema.PolicyRule{R("a", "allow", nil),
			named("no-keys", R("read_file", "deny", &schema.Condition{All: []schema.Condition{*eq("a", "b"), {Arg: "path", Matches: "(["}}}))}},
			[]string{`rules[1] "no-keys"`, "when.all[1].matches", "invalid regular expression", "RE2"}},
		{"bad glob", schema.Policy{Rules: []schema.PolicyRule{R("read_file", "deny", &schema.Condition{Arg: "path", Glob: "[a"})}},
			[]string{"rules[0]", "when.glob", "not a valid glob"}},
		{"bad tool pattern", schema.Policy{Rules: []schema.PolicyRule{R("read_[", "deny", nil)}}, []string{"rules[0]", "not a valid glob"}},
		{"empty tool", schema.Policy{Rules: []schema.PolicyRule{R("", "deny", nil)}}, []string{"rules[0]", "tool is empty"}},
		{"bad action", schema.Policy{Rules: []schema.PolicyRule{R("x", "maybe", nil)}}, []string{"rules[0]", `action "maybe"`}},
		{"bad risk", schema.Policy{Rules: []schema.PolicyRule{{Tool: "x", Action: "allow", Risk: "extreme"}}}, []string{`risk "extreme"`}},
		{"two tests", schema.Policy{Rules: []schema.PolicyRule{R("x", "deny", &schema.Condition{Arg: "a", Contains: "b", StartsWith: "c"})}},
			[]string{"when", "exactly one", "found 2"}},
		{"no test", schema.Policy{Rules: []schema.PolicyRule{R("x", "deny", &schema.Condition{Arg: "a"})}}, []string{"found 0"}},
		{"test without arg", schema.Policy{Rules: []schema.PolicyRule{R("x", "deny", &schema.Condition{Contains: "a"})}}, []string{"needs arg"}},
		{"unknown pseudo arg", schema.Policy{Rules: []schema.PolicyRule{R("x", "deny", eq("$prog", "rm"))}}, []string{`"$prog"`, "$program"}},
		{"empty path segment", schema.Policy{Rules: []schema.PolicyRule{R("x", "deny", eq("a..b", "rm"))}}, []string{"empty path segment"}},
		{"bad default action", schema.Policy{DefaultAction: "sometimes"}, []string{"policy.defaultAction"}},
		{"bad mode", schema.Policy{Mode: "turbo"}, []string{"policy.mode", "auto_edit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.pol, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestCompileLayers(t *testing.T) {
	p := MustCompile(schema.Policy{Rules: []schema.PolicyRule{named("team", R("read_file", "deny", nil))}},
		Options{Layers: []schema.Scope{schema.ScopeWorkspace}})
	d := p.Decide(readFacts, nil)
	if d.Rule == nil || d.Rule.Layer != "workspace" || d.Rule.Name != "team" || d.Rule.Tool != "read_file" {
		t.Fatalf("rule = %+v", d.Rule)
	}
	if !strings.Contains(d.Reason, `rules[0] "team" (workspace)`) {
		t.Errorf("reason %q does not name the rule", d.Reason)
	}
}
