package tui

import (
	"encoding/json"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/policy"
)

func elicitRequest(id string) ConfirmRequested {
	return ConfirmRequested{ID: id, Details: policy.Details{Tool: ElicitTool, Reason: `MCP server "everything" asks for input`,
		Params: json.RawMessage(`{"server":"everything","message":"Who are you?","schema":{"type":"object",` +
			`"properties":{"name":{"type":"string","description":"Your full name"},"age":{"type":"integer"}},"required":["name"]}}`)}}
}

// Issue 5: the answer to an MCP server's request for input is typed in
// the dialog - y, a and n are letters of it, not answers - and Enter sends
// it as the response's feedback.
func TestElicitationAnswerIsTyped(t *testing.T) {
	m, f := newModel(t)
	send(m, elicitRequest("e1"))
	v := plain(m)
	mustContain(t, v, `MCP server "everything" asks for input`, "Who are you?", "name (string, required): Your full name",
		"age (integer)", `answer with a JSON object, e.g. {"name": ...}`, "answer>", "[enter] send", "[esc] decline")
	mustNotContain(t, v, "[a] allow always")
	typeText(m, `{"name": "Ada", "age": 36}`)
	if len(f.answers) != 0 || m.input.Value() != "" {
		t.Fatalf("typing answered %v or reached the prompt %q", f.answers, m.input.Value())
	}
	mustContain(t, plain(m), `{"name": "Ada", "age": 36}`)
	send(m, key(tea.KeyBackspace), runeKey('}'))
	send(m, key(tea.KeyEnter))
	want := answer{"e1", bus.AllowOnce, `{"name": "Ada", "age": 36}`}
	if len(f.answers) != 1 || f.answers[0] != want {
		t.Fatalf("answers = %+v, want %+v", f.answers, want)
	}
	v = plain(m)
	mustNotContain(t, v, "answer>")
	mustContain(t, v, `MCP server "everything" asks for input: answered`)

	// The next request starts with an empty answer; Esc declines it.
	send(m, elicitRequest("e2"))
	if m.answer.Value() != "" {
		t.Fatalf("answer carried over: %q", m.answer.Value())
	}
	typeText(m, "no")
	send(m, key(tea.KeyEsc))
	if len(f.answers) != 2 || f.answers[1] != (answer{"e2", bus.Deny, ""}) {
		t.Fatalf("answers = %+v", f.answers)
	}
	mustContain(t, plain(m), "asks for input: declined")
}

// A sampling request shows the server, the messages and the token limit;
// y allows it, "always" is not offered.
func TestSamplingRequestShown(t *testing.T) {
	m, f := newModel(t)
	send(m, ConfirmRequested{ID: "s1", Details: policy.Details{Tool: SampleTool, Reason: `MCP server "everything" asks to use the model`,
		Params: json.RawMessage(`{"server":"everything","systemPrompt":"You are a helpful test server.",` +
			`"messages":[{"role":"user","text":"what is six times seven?"}],"maxTokens":50}`)}})
	v := plain(m)
	mustContain(t, v, `Let MCP server "everything" use the model?`, "at most 50 tokens", "system: You are a helpful test server.",
		"user: what is six times seven?", "[y] allow   [n] deny")
	mustNotContain(t, v, "[a] allow always", `"maxTokens"`)
	send(m, runeKey('a'))
	if len(f.answers) != 0 {
		t.Fatalf("a answered a sampling request: %+v", f.answers)
	}
	send(m, runeKey('y'))
	if len(f.answers) != 1 || f.answers[0] != (answer{"s1", bus.AllowOnce, ""}) {
		t.Fatalf("answers = %+v", f.answers)
	}
	mustContain(t, plain(m), `asks to use the model: allowed`)
}
