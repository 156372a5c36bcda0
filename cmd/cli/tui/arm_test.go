package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ollm/ollm/core/bus"
)

// Keys that reach a dialog before it is armed (typed ahead for the input
// box, or pushed into the terminal) do not answer it, and each restarts
// the wait; once armed (its tick, seq matching) the keys line shows and a
// key answers. The next dialog in the queue waits again. Ctrl-C always
// goes through.
func TestDialogIgnoresTypeAhead(t *testing.T) {
	m, f := newModel(t)
	second := confirmWrite()
	second.ID = "req-2"
	for _, msg := range []tea.Msg{ToolStarted{ID: "c1", Name: "write_file"}, confirmWrite(), second} {
		m.Update(msg)
	}
	mustContain(t, plain(m), "Allow write_file?", "what was typed before this appeared is ignored")
	mustNotContain(t, plain(m), "[y] allow once")

	opened := m.armSeq
	for _, r := range "ya" {
		m.Update(runeKey(r))
	}
	m.Update(key(tea.KeyEnter))
	m.Update(armMsg{opened}) // the tick of the first wait: a key restarted it
	m.Update(runeKey('a'))
	if len(f.answers) != 0 {
		t.Fatalf("type-ahead answered the dialog: %v", f.answers)
	}
	m.Update(armMsg{m.armSeq})
	mustContain(t, plain(m), "[y] allow once", "[a] allow always")
	m.Update(runeKey('y'))
	m.Update(runeKey('y')) // a double press: the next dialog is not armed yet
	if len(f.answers) != 1 || f.answers[0] != (answer{"req-1", bus.AllowOnce, ""}) {
		t.Fatalf("answers = %v, want req-1 allowed once", f.answers)
	}
	mustContain(t, plain(m), "what was typed before this appeared is ignored")

	m.Update(key(tea.KeyCtrlC)) // unarmed, and still denies
	if len(f.answers) != 2 || f.answers[1] != (answer{"req-2", bus.Deny, ""}) {
		t.Fatalf("answers = %v, want req-2 denied by Ctrl-C", f.answers)
	}
}

// The start-of-session approvals wait the same way.
func TestApprovalIgnoresTypeAhead(t *testing.T) {
	m, f := newModel(t)
	m.Update(ApprovalsNeeded{Items: []Approval{{ID: "a1", Kind: "mcp", Name: "srv", Detail: "node x"}}})
	m.Update(runeKey('a'))
	if len(f.approvals) != 0 {
		t.Fatalf("type-ahead approved: %v", f.approvals)
	}
	m.View()
	m.Update(armMsg{m.armSeq})
	mustContain(t, plain(m), "[a] approve")
	m.Update(runeKey('a'))
	if len(f.approvals) != 1 {
		t.Fatalf("approved = %v after arming", f.approvals)
	}
}
