package tui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

type fakeSessions []SessionInfo

func (f fakeSessions) List() ([]SessionInfo, error) { return f, nil }

func resumeModel(t *testing.T) *Model {
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.Local)
	ss := fakeSessions{
		{ID: "20261128-010000-aaaa", Title: "this one", Workspace: "/ws", Time: at.Add(48 * time.Hour), Current: true},
		{ID: "20261121-093000-bbbb", Title: "fix the flaky test in store", Workspace: "/ws", Time: at.Add(24 * time.Hour)},
		{ID: "20261120-093000-cccc", Title: "write the release notes", Workspace: "/other", Time: at},
	}
	return New(newFake(), Options{Width: 120, Height: 30, Style: "notty", Sessions: ss})
}

// /resume lists the saved sessions (title, date, workspace); Enter on one
// ends the program with it chosen; the running one is not switched to.
func TestResumePicker(t *testing.T) {
	m := resumeModel(t)
	typeText(m, "/resume")
	_, cmd := m.Update(key(tea.KeyEnter))
	send(m, cmdsMsgOf(t, cmd))
	v := plain(m)
	mustContain(t, v, "Resume a session", "3 saved", "this one (this session)", "2026-11-21 09:30", "fix the flaky test in store", "/ws",
		"2026-11-20 09:30", "write the release notes", "/other", "[enter] switch to it")
	send(m, key(tea.KeyEnter))
	if m.ResumeTo() != nil || m.Quitting() {
		t.Fatal("switched to the running session")
	}
	mustContain(t, plain(m), "this is the session running now")
	typeText(m, "/resume")
	_, cmd = m.Update(key(tea.KeyEnter))
	send(m, cmdsMsgOf(t, cmd))
	send(m, key(tea.KeyDown), key(tea.KeyDown))
	_, cmd = m.Update(key(tea.KeyEnter))
	if to := m.ResumeTo(); to == nil || to.ID != "20261120-093000-cccc" || to.Workspace != "/other" || !m.Quitting() {
		t.Fatalf("chose %+v, quitting %v", to, m.Quitting())
	}
	if cmd == nil {
		t.Fatal("no quit")
	}
}

// /resume ID switches without the picker; an unknown id is an error.
func TestResumeByID(t *testing.T) {
	m := resumeModel(t)
	typeText(m, "/resume nope")
	_, cmd := m.Update(key(tea.KeyEnter))
	send(m, cmdsMsgOf(t, cmd))
	mustContain(t, plain(m), "/resume: no saved session nope; /resume lists them")
	typeText(m, "/resume 20261121-093000-bbbb")
	_, cmd = m.Update(key(tea.KeyEnter))
	m.Update(cmdsMsgOf(t, cmd))
	if to := m.ResumeTo(); to == nil || to.ID != "20261121-093000-bbbb" {
		t.Fatalf("chose %+v", to)
	}
}
