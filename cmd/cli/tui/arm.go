package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// A dialog (a confirmation, an MCP server's request, the start-of-session
// approvals) takes keys only once it has been drawn (View produced it)
// and armDelay has passed since it opened with no key; a key in that time
// (but Ctrl-C and the keys that scroll it) is dropped and restarts the
// wait: keys typed ahead for the input box, or pushed into the terminal by
// a program, cannot answer it. A tick that comes before the dialog was
// drawn (a stalled program) waits again. Its keys line appears when it is
// armed.
const armDelay = 400 * time.Millisecond

// armMsg arms the dialog shown if no key restarted its wait (seq).
type armMsg struct{ seq int }

// arm handles the tick of the wait seq: the dialog takes keys if it has
// been drawn, else the wait starts again.
func (m *Model) arm(seq int) tea.Cmd {
	if seq != m.armSeq || m.armed || m.dialogID() == "" {
		return nil
	}
	if m.drawn != m.dialogID() {
		return m.startArm()
	}
	m.armed = true
	return nil
}

// dialogID names the dialog shown, "" for none.
func (m *Model) dialogID() string {
	switch {
	case len(m.approve) > 0:
		return "approve:" + m.approve[0].ID
	case len(m.confirm) > 0:
		return "confirm:" + m.confirm[0].ID
	case m.orientDialogID() != "":
		return m.orientDialogID()
	case m.cmdsDialogID() != "": // menu.go
		return m.cmdsDialogID()
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
	m.dlg = dialogScroll{}
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
	if m.dialogScrollKey(k) { // reading is not answering: the wait goes on
		return nil, true
	}
	return m.startArm(), true
}
