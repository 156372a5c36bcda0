package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

var stBold = lipgloss.NewStyle().Bold(true)

// A dialog's body (the command, the diff, the arguments, the list of
// approvals) scrolls when it is taller than its room: the dialog shows a
// window of it with "lines a-b of N", and ↑/↓, j/k, PgUp/PgDn, Home/End
// move the window, so every line can be read before answering. Scrolling
// is not an answer: it works before the dialog takes answers (arm.go)
// and does not restart that wait.

// dialogScroll is the window on the dialog's body; the view records the
// room and the largest top it found on the last render.
type dialogScroll struct {
	top  int
	max  int // 0: the body fits
	page int
}

// dialogScrollKey moves the window for a scroll key and reports whether
// k was one. PgUp/PgDn scroll the conversation when the body fits.
func (m *Model) dialogScrollKey(k tea.KeyMsg) bool {
	d := &m.dlg
	page := max(d.page-1, 1)
	switch {
	case k.Type == tea.KeyUp || (k.Type == tea.KeyRunes && !k.Alt && string(k.Runes) == "k"):
		d.top--
	case k.Type == tea.KeyDown || (k.Type == tea.KeyRunes && !k.Alt && string(k.Runes) == "j"):
		d.top++
	case k.Type == tea.KeyPgUp:
		if d.max == 0 {
			m.scrollBy(m.bodyH / 2)
			return true
		}
		d.top -= page
	case k.Type == tea.KeyPgDown:
		if d.max == 0 {
			m.scrollBy(-m.bodyH / 2)
			return true
		}
		d.top += page
	case k.Type == tea.KeyHome:
		d.top = 0
	case k.Type == tea.KeyEnd:
		d.top = d.max
	default:
		return false
	}
	d.top = max(min(d.top, d.max), 0)
	return true
}

// scrollBody is the window of lines that fits in room rows: all of them,
// or room-1 of them from the scroll position and the line saying which.
func (m *Model) scrollBody(lines []string, room int) []string {
	room = max(room, 3)
	if len(lines) <= room {
		m.dlg.max, m.dlg.page = 0, room
		return lines
	}
	room--
	m.dlg.max, m.dlg.page = len(lines)-room, room
	top := max(min(m.dlg.top, m.dlg.max), 0)
	out := append([]string(nil), lines[top:top+room]...)
	more := "↑/↓ j/k PgUp/PgDn scroll"
	if top+room == len(lines) {
		more = "the end; ↑/k PgUp scroll back"
	}
	return append(out, stWarn.Render(fmt.Sprintf("lines %d-%d of %d", top+1, top+room, len(lines)))+stDim.Render("  "+more))
}

// dialogRoom is the rows a dialog's body may take: the dialog gets three
// quarters of the screen, less its border and the rows of head and foot.
func (m *Model) dialogRoom(head, foot string) int {
	return m.height*3/4 - 2 - lineCount(head) - lineCount(foot)
}

// hardLines splits s into lines cut to w columns each (a long line goes
// on in the next rows, nothing is cut off), styling each piece of a line
// with style(the whole line).
func hardLines(s string, w int, style func(line string) func(...string) string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		st := plainText
		if style != nil {
			st = style(l)
		}
		for _, p := range strings.Split(ansi.Hardwrap(l, max(w, 10), true), "\n") {
			out = append(out, st(p))
		}
	}
	return out
}

// diffStyle colours a diff line by its first characters.
func diffStyle(l string) func(...string) string {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		return stBold.Render
	case strings.HasPrefix(l, "+"):
		return stDiffAdd.Render
	case strings.HasPrefix(l, "-"):
		return stDiffDel.Render
	case strings.HasPrefix(l, "@@"):
		return stDiffHunk.Render
	}
	return plainText
}

func plainText(s ...string) string { return strings.Join(s, " ") }

// trustLine names a write to a trust file as such, above its why.
const trustLine = "⚠ trust file: runs code later"
