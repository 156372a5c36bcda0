package policy_test

import (
	"encoding/json"
	"testing"

	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// TestAlwaysAllowNarrow: "always" for `git status --short` can be saved as
// every git command or only `git status ...`; the narrow rule allows
// `git status` in any spelling of its arguments and nothing else of git.
func TestAlwaysAllowNarrow(t *testing.T) {
	p := policy.MustCompile(schema.Policy{DefaultAction: "ask"}, policy.Options{})
	shell := policy.Facts{Name: "shell", Kind: tool.KindExecute}
	decide := func(p *policy.Policy, cmd string) policy.Decision {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"command": cmd})
		d, err := p.DecideJSON(shell, args)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := decide(p, "git status --short")
	broad, _ := p.AlwaysAllow(d)
	narrow, ok := p.AlwaysAllowNarrow(d)
	if !ok || len(narrow) != 1 {
		t.Fatalf("narrow = %+v, %v", narrow, ok)
	}
	if got := policy.RulesText(broad); got != `shell where $program equals "git"` {
		t.Errorf("broad text = %s", got)
	}
	if got := policy.RulesText(narrow); got != `shell where $program equals "git" and $command matches "^(\\S*/)?git status( |$)"` {
		t.Errorf("narrow text = %s", got)
	}
	p2, err := p.WithRules(schema.ScopeUser, narrow...)
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]policy.Action{
		"git status --short": policy.Allow, "git status": policy.Allow, "/usr/bin/git status -s": policy.Allow,
		"git log": policy.Ask, "git statusx": policy.Ask, "git push --force": policy.Ask, "echo git status": policy.Ask,
	} {
		if got := decide(p2, cmd); got.Action != want {
			t.Errorf("%q after the narrow answer: %s, want %s", cmd, got.Action, want)
		}
	}
	for _, cmd := range []string{"ls -la", `git "status"`, "$X status"} {
		if _, ok := p.AlwaysAllowNarrow(decide(p, cmd)); ok {
			t.Errorf("%q offers a narrow answer", cmd)
		}
	}
	if _, ok := p.AlwaysAllowNarrow(policy.Decision{Tool: "write_file"}); ok {
		t.Error("a non-shell tool offers a narrow answer")
	}
}
