package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// A dialog (a confirmation, an MCP server's request, the start-of-session
// approvals) takes keys only armDelay after it opened, and a key in that
// time (but Ctrl-C) is dropped and restarts the wait: keys typed ahead for
// the input box, or pushed into the terminal by a program, cannot answer
// it. The dialog is drawn within a frame (1/60 s) of opening; its keys line
// appears when it is armed.
const armDelay = 400 * time.Millisecond

// armMsg arms the dialog shown if no key restarted its wait (seq).
type armMsg struct{ seq int }

// dialogID names the dialog shown, "" for none.
func (m *Model) dialogID() string {
	switch {
	case len(m.approve) > 0:
		return "approve:" + m.approve[0].ID
	case len(m.confirm) > 0:
		return "confirm:" + m.confirm[0].ID
	case m.orientDialogID() != "":
		return m.orientDialogID()
	}
	return ""
}

// rearm starts the wait when another dialog is shown (after a message
// opened one, or an answer showed the next in the queue).
func (m *Model) rearm() tea.Cmd {
	id := m.dialogID()
	if id == m.shown {
		return nil
	}
	m.shown = id
	if id == "" {
		return nil
	}
	return m.startArm()
}

func (m *Model) startArm() tea.Cmd {
	m.armed = false
	m.armSeq++
	seq := m.armSeq
	return tea.Tick(armDelay, func(time.Time) tea.Msg { return armMsg{seq} })
}

// unarmedKey drops a key that reached a dialog before it was armed and
// restarts the wait; Ctrl-C always goes through (it denies or quits).
func (m *Model) unarmedKey(k tea.KeyMsg) (tea.Cmd, bool) {
	if m.armed || m.dialogID() == "" || k.Type == tea.KeyCtrlC {
		return nil, false
	}
	return m.startArm(), true
}
