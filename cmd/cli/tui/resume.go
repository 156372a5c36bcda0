package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/reflow/truncate"
)

// /resume: a picker of the saved sessions (title, date, workspace),
// newest first; Enter switches to the chosen one. Switching ends this
// program and the caller starts the chosen session (Model.ResumeTo):
// a session is built from its workspace's profile, servers and hooks, so
// it is started as `ollm --resume ID` would start it rather than swapped
// in under the running one. /resume ID switches without the picker.

// Sessions lists the saved sessions.
type Sessions interface {
	List() ([]SessionInfo, error)
}

// SessionInfo is one saved session.
type SessionInfo struct {
	ID        string
	Title     string // its first prompt, on one line
	Workspace string
	Time      time.Time // when it was last written
	Current   bool      // the session running now
}

// resumeState is the picker.
type resumeState struct {
	loading bool
	open    bool
	list    []SessionInfo
	sel     int
	to      *SessionInfo // chosen: the program quits and the caller resumes it
}

type sessionsListed struct {
	list []SessionInfo
	err  error
	want string // /resume ID
}

func (sessionsListed) cmdsMsg() {}

// ResumeTo is the session the user chose to switch to, nil for none.
func (m *Model) ResumeTo() *SessionInfo { return m.cmds.resume.to }

// resumeCommand starts /resume [ID]: the list is read off the UI's goroutine.
func (m *Model) resumeCommand(c Command) tea.Cmd {
	ss := m.opt.Sessions
	if ss == nil {
		m.info("error", "/resume is not available in this session; `ollm --resume [ID]` resumes one")
		return nil
	}
	want := ""
	if len(c.Args) > 0 {
		want = c.Args[0]
	} else {
		m.cmds.resume = resumeState{loading: true}
	}
	return func() tea.Msg {
		list, err := ss.List()
		return sessionsListed{list: list, err: err, want: want}
	}
}

func (m *Model) sessionsListed(msg sessionsListed) tea.Cmd {
	r := &m.cmds.resume
	r.loading = false
	if msg.err != nil {
		m.info("error", "/resume: "+msg.err.Error())
		return nil
	}
	if msg.want != "" {
		for _, s := range msg.list {
			if s.ID == msg.want {
				return m.switchSession(s)
			}
		}
		m.info("error", fmt.Sprintf("/resume: no saved session %s; /resume lists them", msg.want))
		return nil
	}
	if len(msg.list) == 0 {
		m.info("info", "no saved sessions")
		return nil
	}
	r.list, r.open, r.sel = msg.list, true, 0
	return nil
}

// switchSession ends the program so that the caller resumes s.
func (m *Model) switchSession(s SessionInfo) tea.Cmd {
	if s.Current {
		m.info("info", "this is the session running now")
		return nil
	}
	if m.busy {
		m.info("error", "a turn is running; Ctrl-C cancels it, then /resume")
		return nil
	}
	m.cmds.resume.to = &s
	m.quit = true
	return tea.Quit
}

// pickerMove moves a picker's selection among n rows for up/k and
// down/j; false for any other key.
func pickerMove(key string, sel *int, n int) bool {
	switch key {
	case "up", "k":
		if *sel > 0 {
			*sel--
		}
	case "down", "j":
		if *sel < n-1 {
			*sel++
		}
	default:
		return false
	}
	return true
}

// resumeKey is the picker's keys.
func (m *Model) resumeKey(k tea.KeyMsg) (tea.Cmd, bool) {
	r := &m.cmds.resume
	if pickerMove(k.String(), &r.sel, len(r.list)) {
		return nil, true
	}
	switch k.String() {
	case "esc", "ctrl+c", "q":
		r.open = false
	case "enter":
		r.open = false
		return m.switchSession(r.list[r.sel]), true
	}
	return nil, true
}

// resumeView is the picker.
func (m *Model) resumeView() string {
	r := &m.cmds.resume
	w := m.width - 4
	var b strings.Builder
	b.WriteString(stTitle.Render("Resume a session") + stDim.Render(fmt.Sprintf("  %d saved, newest first", len(r.list))) + "\n")
	room := max(m.height*2/3-4, 3)
	start := 0
	if r.sel >= room {
		start = r.sel - room + 1
	}
	for i := start; i < len(r.list) && i < start+room; i++ {
		s := r.list[i]
		mark := "  "
		if i == r.sel {
			mark = "▸ "
		}
		title := clean(s.Title)
		if title == "" {
			title = "(no prompt)"
		}
		if s.Current {
			title += " (this session)"
		}
		line := fmt.Sprintf("%s%s  %-40s  %s", mark, s.Time.Local().Format("2006-01-02 15:04"), truncate.StringWithTail(title, 40, "…"), clean(s.Workspace))
		line = truncate.StringWithTail(line, uint(max(w-2, 10)), "…")
		if i == r.sel {
			line = stTitle.Render(line)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString(m.keysLine("[↑/↓] choose   [enter] switch to it   [esc] close"))
	return stDialog.Width(w).Render(b.String())
}
