package tools

import "github.com/ollm/ollm/core/sandbox"

// ExplainDenial is the shell tool's one-line account of a refusal by the
// sandbox ("blocked by the sandbox: ..."), read from what the command
// printed; "" when the output shows none. An editor's terminal (ACP)
// explains its commands' refusals with it as the shell tool does.
func ExplainDenial(output string, p *sandbox.Policy, root string) string {
	return explainDenial(output, p, root)
}
