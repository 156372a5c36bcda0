package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
)

// A confirmation on a terminal reads as text: the call, where, which rule
// asks and why, and the diff as a diff, not a JSON dump with the diff as
// an escaped string (issue 18).
func TestConfirmationIsReadable(t *testing.T) {
	var b bytes.Buffer
	writeConfirmation(&b, policy.Details{Tool: "write_file", Description: "Write notes.txt", Kind: tool.KindEdit, Risk: tool.RiskMedium,
		Locations: []string{"notes.txt"}, Params: json.RawMessage(`{"path":"notes.txt","content":"two\n"}`),
		Diff:   "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-one\n+two\n",
		Rule:   &policy.RuleRef{Index: 2, Name: "writes-ask", Layer: "user", Tool: "write_file"},
		Reason: `rule rules[2] "writes-ask" (user) asks`})
	want := `write_file (edit, risk medium): Write notes.txt
  where:   notes.txt
  rule:    rules[2] "writes-ask" (user)
  reason:  rule rules[2] "writes-ask" (user) asks
  diff:
    --- a/notes.txt
    +++ b/notes.txt
    @@ -1 +1 @@
    -one
    +two
`
	if got := b.String(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(b.String(), `\n`) || strings.Contains(b.String(), "{") {
		t.Fatal("JSON left in the confirmation")
	}

	// A shell command shows the command, not its JSON arguments.
	b.Reset()
	writeConfirmation(&b, policy.Details{Tool: "shell", Kind: tool.KindExecute, Risk: tool.RiskHigh, Command: "rm -rf build",
		Params: json.RawMessage(`{"command":"rm -rf build"}`), Reason: "policy.defaultAction is ask"})
	if got := b.String(); got != "shell (execute, risk high)\n  command: rm -rf build\n  reason:  policy.defaultAction is ask\n" {
		t.Fatalf("shell: %q", got)
	}
}
