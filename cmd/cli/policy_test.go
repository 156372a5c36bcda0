package cli

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

func checkOpts(rules ...schema.PolicyRule) (*PolicyCheckOptions, func() string) {
	io, _, out, _ := TestIO()
	r := &schema.Resolved{Profile: schema.Profile{Policy: schema.Policy{DefaultAction: "ask", Mode: "default", Rules: rules}},
		RuleScopes: []schema.Scope{schema.ScopeUser, schema.ScopeWorkspace, schema.ScopeWorkspace}}
	opts := &PolicyCheckOptions{
		IO:   io,
		Load: func() (*schema.Resolved, error) { return r, nil },
		Facts: func(_ *schema.Resolved, name string) policy.Facts {
			if name == "shell" {
				return policy.Facts{Name: name, Kind: tool.KindExecute}
			}
			return policy.Facts{Name: name, Kind: tool.KindOther}
		},
	}
	return opts, out.String
}

func TestPolicyCheckRun(t *testing.T) {
	opts, out := checkOpts(
		schema.PolicyRule{Name: "safe", Tool: "shell", Action: "allow", When: &schema.Condition{Arg: "$program", Equals: "ls"}},
		schema.PolicyRule{Name: "no-rm", Tool: "shell", Action: "deny", Message: "never rm", When: &schema.Condition{Arg: "$program", Equals: "rm"}},
	)
	opts.Tool, opts.Args = "shell", `{"command":"ls && sudo rm -rf /"}`
	if err := policyCheckRun(opts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"decision: deny\n", "tool:     shell (execute, risk high)\n", `rule:     rules[1] "no-rm" (workspace), tool "shell"`,
		"message:  never rm\n", `reason:   "rm -rf /" (run by sudo): rule rules[1]`,
		"  allow  ls", "  ask    sudo rm -rf /", "  deny   rm -rf /  (run by sudo)",
	} {
		if !strings.Contains(out(), want) {
			t.Errorf("output does not hold %q:\n%s", want, out())
		}
	}
}

func TestPolicyCheckRunJSONAndMode(t *testing.T) {
	opts, out := checkOpts(schema.PolicyRule{Tool: "mcp:github:*", Action: "allow"})
	opts.Tool, opts.Args, opts.JSON, opts.Mode = "github:create_issue", "{}", true, "plan"
	if err := policyCheckRun(opts); err != nil {
		t.Fatal(err)
	}
	var got policy.Decision
	if err := json.Unmarshal([]byte(out()), &got); err != nil {
		t.Fatal(err)
	}
	if got.Action != policy.Deny || got.Mode != policy.ModePlan || !strings.Contains(got.Reason, "plan mode") {
		t.Errorf("got %+v", got)
	}
}

func TestPolicyCheckRunErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*PolicyCheckOptions)
		target any
		want   string
	}{
		{"bad json", func(o *PolicyCheckOptions) { o.Args = "{" }, &FlagError{}, "not a JSON object"},
		{"bad mode", func(o *PolicyCheckOptions) { o.Mode = "turbo" }, &FlagError{}, "unknown policy mode"},
		{"bad kind", func(o *PolicyCheckOptions) { o.Kind = "magic" }, &FlagError{}, "--kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, _ := checkOpts()
			opts.Tool, opts.Args = "x", "{}"
			tc.edit(opts)
			err := policyCheckRun(opts)
			var fe *FlagError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v", err)
			}
		})
	}
	opts, _ := checkOpts(schema.PolicyRule{Tool: "x", Action: "deny", When: &schema.Condition{Arg: "a", Matches: "("}})
	opts.Tool, opts.Args = "x", "{}"
	var ce *ConfigError
	if err := policyCheckRun(opts); !errors.As(err, &ce) || !strings.Contains(err.Error(), "rules[0]") {
		t.Errorf("err = %v", err)
	}
}
