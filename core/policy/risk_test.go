package policy

import (
	"testing"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// Requirement 7.7: every tool has a risk level.
func TestRiskOf(t *testing.T) {
	tests := []struct {
		name  string
		facts Facts
		want  tool.Risk
	}{
		{"read", Facts{Kind: tool.KindRead}, tool.RiskLow},
		{"search", Facts{Kind: tool.KindSearch}, tool.RiskLow},
		{"think", Facts{Kind: tool.KindThink}, tool.RiskLow},
		{"fetch", Facts{Kind: tool.KindFetch}, tool.RiskMedium},
		{"edit", Facts{Kind: tool.KindEdit}, tool.RiskMedium},
		{"delete", Facts{Kind: tool.KindDelete}, tool.RiskHigh},
		{"execute", Facts{Kind: tool.KindExecute}, tool.RiskHigh},
		{"unknown kind", Facts{}, tool.RiskHigh},
		{"MCP readOnlyHint", Facts{Kind: tool.KindOther, Annotations: tool.Annotations{ReadOnly: ptr(true)}}, tool.RiskLow},
		{"MCP destructiveHint", Facts{Kind: tool.KindOther, Annotations: tool.Annotations{Destructive: ptr(true)}}, tool.RiskHigh},
		{"MCP not read-only, destructive unset", Facts{Annotations: tool.Annotations{ReadOnly: ptr(false)}}, tool.RiskHigh},
		{"MCP not read-only, not destructive", Facts{Annotations: tool.Annotations{ReadOnly: ptr(false), Destructive: ptr(false)}}, tool.RiskMedium},
		{"MCP readOnly wins over destructive", Facts{Annotations: tool.Annotations{ReadOnly: ptr(true), Destructive: ptr(true)}}, tool.RiskLow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RiskOf(tc.facts); got != tc.want {
				t.Errorf("RiskOf = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestDecisionRisk(t *testing.T) {
	p := MustCompile(schema.Policy{Rules: []schema.PolicyRule{
		{Tool: "shell", Action: "allow", Risk: "low", When: eq("$program", "ls")},
		{Tool: "read_file", Action: "ask", Risk: "high"},
	}}, Options{})
	for _, tc := range []struct {
		facts Facts
		args  string
		want  tool.Risk
	}{
		{readFacts, `{}`, tool.RiskHigh},                      // the rule's risk
		{grepFacts, `{}`, tool.RiskLow},                       // the kind's
		{shellFacts, `{"command":"ls"}`, tool.RiskLow},        // the rule's
		{shellFacts, `{"command":"ls; make"}`, tool.RiskHigh}, // the highest part
		{searchFacts, `{}`, tool.RiskLow},                     // MCP hint
		{issueFacts, `{}`, tool.RiskHigh},                     // MCP without hints
		{writeFacts, `{"path":"a"}`, tool.RiskMedium},         // edit
		{Facts{Name: "x", Kind: tool.KindDelete}, `{}`, tool.RiskHigh},
	} {
		d, _ := p.DecideJSON(tc.facts, []byte(tc.args))
		if d.Risk != tc.want {
			t.Errorf("%s %s: risk %s, want %s", tc.facts.Name, tc.args, d.Risk, tc.want)
		}
	}
}
