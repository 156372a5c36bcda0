package policy

import "github.com/ollm/ollm/core/tool"

// RiskOf classifies a tool. MCP annotations come first: readOnlyHint
// means low, destructiveHint high, and a tool that says it is not
// read-only without denying destruction is high, as the MCP specification
// makes destructiveHint default to true. Otherwise the kind decides
// (tool.RiskFor).
func RiskOf(f Facts) tool.Risk {
	a := f.Annotations
	switch {
	case a.ReadOnly != nil && *a.ReadOnly:
		return tool.RiskLow
	case a.Destructive != nil && *a.Destructive:
		return tool.RiskHigh
	case a.ReadOnly != nil && a.Destructive == nil:
		return tool.RiskHigh
	case a.Destructive != nil:
		return tool.RiskMedium
	}
	return tool.RiskFor(f.Kind)
}

func riskRank(r tool.Risk) int {
	switch r {
	case tool.RiskHigh:
		return 2
	case tool.RiskMedium:
		return 1
	}
	return 0
}

func maxRisk(a, b tool.Risk) tool.Risk {
	if riskRank(b) > riskRank(a) {
		return b
	}
	return a
}
