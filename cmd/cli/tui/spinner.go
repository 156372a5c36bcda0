package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// The spinner of a running call and of the model at work. One tea.Tick is
// in flight while something runs, none when idle: an idle session is not
// redrawn.

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinEvery is the spinner's frame time.
const spinEvery = 100 * time.Millisecond

// now is the clock the spinner and the elapsed times read (tests set it).
var now = time.Now

// spinMsg is the spinner's tick.
type spinMsg struct{}

// spinFrame is the frame for something running since t.
func spinFrame(t time.Time) string {
	if t.IsZero() {
		return spinFrames[0]
	}
	return spinFrames[int(now().Sub(t)/spinEvery)%len(spinFrames)]
}

// running reports whether anything is at work: a turn or a job (calls
// run inside one). A card a runtime never finished does not keep an idle
// session ticking.
func (m *Model) running() bool { return m.busy }

// spin notes when things started and ended and schedules the next tick
// when something runs and no tick is in flight; Update calls it last.
func (m *Model) spin() tea.Cmd {
	t := now()
	switch {
	case m.busy && m.busySince.IsZero():
		m.busySince = t
	case !m.busy:
		m.busySince = time.Time{}
	}
	for _, c := range m.cards {
		switch c.status {
		case ToolAsking: // the time waiting for an answer is not the call's
			c.started = time.Time{}
		case ToolRunning:
			if c.started.IsZero() {
				c.started = t
			}
		default:
			if !c.started.IsZero() && c.ended.IsZero() {
				c.ended = t
				m.uncache(c)
			}
		}
	}
	if m.ticking || !m.running() {
		return nil
	}
	m.ticking = true
	return tea.Tick(spinEvery, func(time.Time) tea.Msg { return spinMsg{} })
}

// onSpin is a tick arriving: the running cards and the activity line are
// drawn anew (they are never cached) and the next tick is scheduled if
// something still runs.
func (m *Model) onSpin() tea.Cmd {
	m.ticking = false
	return m.spin()
}

// activity is the line under the conversation while the model works and
// no call runs: "⠋ Thinking 3.2s"; "" when idle.
func (m *Model) activity() string {
	if !m.busy || len(m.confirm) > 0 || len(m.approve) > 0 {
		return ""
	}
	for _, c := range m.cards {
		if c.status == ToolRunning || c.status == ToolAsking {
			return ""
		}
	}
	what := "Working"
	switch {
	case m.cur != nil:
		what = "Writing"
	case m.think != nil:
		what = "Thinking"
	}
	d := time.Duration(0)
	if !m.busySince.IsZero() {
		d = now().Sub(m.busySince)
	}
	return stWarn.Render(spinFrame(m.busySince)) + " " + what + " " + stDim.Render(elapsed(d)+" · Ctrl-C cancels")
}

// Update handles one message, then keeps the spinner going while
// something runs.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(spinMsg); ok {
		return m, m.onSpin()
	}
	mod, cmd := m.update(msg)
	return mod, tea.Batch(cmd, m.spin())
}

// activityLines is the activity line as rows under the conversation.
func (m *Model) activityLines() []string {
	if a := m.activity(); a != "" {
		return []string{a}
	}
	return nil
}
