package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

type fakeTrust struct {
	plan     TrustPlan
	approved []string
}

func (f *fakeTrust) Plan() (TrustPlan, error) { return f.plan, nil }
func (f *fakeTrust) Approve(digest string) (string, error) {
	f.approved = append(f.approved, digest)
	return "approved workspace /ws (2 hooks)", nil
}

func trustModel(t *testing.T, state string) (*Model, *fakeRuntime, *fakeTrust) {
	var plan []string
	for i := 1; i <= 40; i++ {
		plan = append(plan, fmt.Sprintf("widens     mcp.servers.s%d  node s%d.js  (ollm.cue:%d:3)", i, i, i))
	}
	tr := &fakeTrust{plan: TrustPlan{Workspace: "/ws", Digest: "sha256:abc", Text: strings.Join(plan, "\n"), State: state, Why: "the workspace /ws brings nothing to approve"}}
	f := newFake()
	m := New(f, Options{Width: 100, Height: 24, Style: "notty", Trust: tr})
	return m, f, tr
}

// /trust shows the whole plan in a dialog that scrolls to its last line;
// y approves that digest and reloads the session.
func TestTrustDialogApprovesAndReloads(t *testing.T) {
	m, f, tr := trustModel(t, TrustNeeded)
	typeText(m, "/trust")
	_, cmd := m.Update(key(tea.KeyEnter))
	send(m, cmdsMsgOf(t, cmd))
	v := plain(m)
	mustContain(t, v, "Approve this workspace?", "workspace /ws", "mcp.servers.s1 ", "lines 1-", "of 40", "[y] approve and reload")
	mustNotContain(t, v, "mcp.servers.s40 ")
	send(m, key(tea.KeyEnd))
	mustContain(t, plain(m), "mcp.servers.s40 ", "the end")
	send(m, runeKey('y'))
	if len(tr.approved) != 1 || tr.approved[0] != "sha256:abc" {
		t.Fatalf("approved %q", tr.approved)
	}
	if len(f.commands) != 1 || f.commands[0].Kind != CmdReload {
		t.Fatalf("commands %+v, want /reload", f.commands)
	}
	v = plain(m)
	mustContain(t, v, "approved workspace /ws (2 hooks)")
	mustNotContain(t, v, "Approve this workspace?")
}

// n leaves the workspace as it is; keys typed before the dialog was drawn
// do not answer it.
func TestTrustDialogNo(t *testing.T) {
	m, f, tr := trustModel(t, TrustNeeded)
	typeText(m, "/trust")
	_, cmd := m.Update(key(tea.KeyEnter))
	m.Update(cmdsMsgOf(t, cmd))
	m.Update(runeKey('y')) // typed ahead: not drawn, not armed
	if len(tr.approved) != 0 {
		t.Fatal("a key typed before the dialog was drawn approved it")
	}
	send(m, runeKey('x'), runeKey('n'))
	if len(tr.approved) != 0 || len(f.commands) != 0 {
		t.Fatalf("approved %q, commands %+v", tr.approved, f.commands)
	}
	v := plain(m)
	mustContain(t, v, "the workspace is not approved; /trust shows the plan again")
	mustNotContain(t, v, "Approve this workspace?")
}

// Nothing to approve, or approved already: said, no dialog.
func TestTrustNothingToDo(t *testing.T) {
	for state, want := range map[string]string{TrustNothing: "brings nothing to approve", TrustApproved: "approved at this digest already"} {
		m, _, tr := trustModel(t, state)
		typeText(m, "/trust")
		_, cmd := m.Update(key(tea.KeyEnter))
		send(m, cmdsMsgOf(t, cmd))
		v := plain(m)
		mustContain(t, v, want)
		mustNotContain(t, v, "Approve this workspace?")
		if len(tr.approved) != 0 {
			t.Fatal("approved")
		}
	}
}
