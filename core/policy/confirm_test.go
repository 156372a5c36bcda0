package policy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
	"github.com/ollm/ollm/tools"
)

func builtin(t *testing.T, name string) (tool.Tool, string) {
	t.Helper()
	dir := t.TempDir()
	for _, tl := range tools.Builtin(tools.Config{Root: dir, Home: store.Home{Dir: filepath.Join(dir, ".home")}}) {
		if tl.Name() == name {
			return tl, dir
		}
	}
	t.Fatalf("no built-in tool %s", name)
	return nil, ""
}

// Requirement 7.8: confirmation details hold the tool, a description, the
// risk and the locations; also the final arguments and a diff for edits.
func TestConfirmEdit(t *testing.T) {
	wf, dir := builtin(t, "write_file")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	params := json.RawMessage(`{"path":"a.txt","content":"new\n","overwrite":true}`)
	inv, err := wf.Build(params)
	if err != nil {
		t.Fatal(err)
	}
	p := policy.MustCompile(schema.Policy{Rules: []schema.PolicyRule{{Name: "ask-writes", Tool: "write_file", Action: "ask"}}}, policy.Options{})
	f := policy.FactsOf(wf)
	d, err := p.DecideJSON(f, inv.Params())
	if err != nil {
		t.Fatal(err)
	}
	c := policy.Confirm(f, inv, d)
	if c.Tool != "write_file" || c.Description == "" || c.Risk != tool.RiskMedium || c.Kind != tool.KindEdit {
		t.Errorf("details = %+v", c)
	}
	if len(c.Locations) != 1 || !strings.HasSuffix(c.Locations[0], "a.txt") {
		t.Errorf("locations = %v", c.Locations)
	}
	if !strings.Contains(c.Diff, "-old") || !strings.Contains(c.Diff, "+new") {
		t.Errorf("diff = %q", c.Diff)
	}
	var got map[string]any
	if err := json.Unmarshal(c.Params, &got); err != nil || got["content"] != "new\n" {
		t.Errorf("params = %s (%v)", c.Params, err)
	}
	if c.Rule == nil || c.Rule.Name != "ask-writes" || c.Reason == "" {
		t.Errorf("rule = %+v, reason %q", c.Rule, c.Reason)
	}
}

func TestConfirmShell(t *testing.T) {
	sh, _ := builtin(t, "shell")
	inv, err := sh.Build(json.RawMessage(`{"command":"ls && make"}`))
	if err != nil {
		t.Fatal(err)
	}
	p := policy.MustCompile(schema.Policy{Rules: []schema.PolicyRule{
		{Tool: "shell", Action: "allow", Risk: "low", When: &schema.Condition{Arg: "$program", Equals: "ls"}}}}, policy.Options{})
	f := policy.FactsOf(sh)
	d, _ := p.DecideJSON(f, inv.Params())
	c := policy.Confirm(f, inv, d)
	if d.Action != policy.Ask || c.Command != "ls && make" || c.Risk != tool.RiskHigh || len(c.Parts) != 2 {
		t.Errorf("decision %+v\ndetails %+v", d, c)
	}
}

func TestAlwaysAllow(t *testing.T) {
	p := policy.MustCompile(schema.Policy{Rules: []schema.PolicyRule{
		{Tool: "shell", Action: "allow", When: &schema.Condition{Arg: "$program", Equals: "ls"}}}}, policy.Options{})
	shell := policy.Facts{Name: "shell", Kind: tool.KindExecute}
	decide := func(p *policy.Policy, f policy.Facts, args string) policy.Decision {
		d, err := p.DecideJSON(f, json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := decide(p, shell, `{"command":"ls && make test | tee log && make"}`)
	rules, complete := p.AlwaysAllow(d)
	if !complete || len(rules) != 2 || rules[0].When.Equals != "make" || rules[1].When.Equals != "tee" {
		t.Fatalf("rules = %+v, complete %v", rules, complete)
	}
	p2, err := p.WithRules(schema.ScopeUser, rules...)
	if err != nil {
		t.Fatal(err)
	}
	if d := decide(p2, shell, `{"command":"ls && make test | tee log"}`); d.Action != policy.Allow {
		t.Errorf("after always allow: %s (%s)", d.Action, d.Reason)
	}
	if d := decide(p2, shell, `{"command":"make && rm x"}`); d.Action != policy.Ask {
		t.Errorf("rm is still asked about: %s (%s)", d.Action, d.Reason)
	}
	if _, complete := p.AlwaysAllow(decide(p, shell, `{"command":"$X"}`)); complete {
		t.Error("an unknown program cannot be always allowed")
	}
	mcp := policy.Facts{Name: "github:create_issue"}
	rules, _ = p.AlwaysAllow(decide(p, mcp, `{}`))
	p3, _ := p.WithRules(schema.ScopeUser, rules...)
	if d := decide(p3, mcp, `{}`); d.Action != policy.Allow || d.Rule.Layer != "user" {
		t.Errorf("MCP tool after always allow: %+v", d)
	}
	if d := decide(p3, policy.Facts{Name: "github:delete_repo"}, `{}`); d.Action != policy.Ask {
		t.Errorf("other MCP tool: %s", d.Action)
	}
}
