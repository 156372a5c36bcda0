package tui

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// The input box. Typed text goes in as text, whatever its words: the
// terminal reader splits what arrives in one read at spaces and control
// characters, and the textarea matches each piece's String() against its
// key bindings, so a piece "up", "down", "left", "right", "home", "end" or
// "delete" would move the cursor or delete instead of being typed. Every
// KeyRunes message (typed or a bracketed paste) is inserted as text here;
// only named keys reach the textarea's bindings. A paste may hold
// newlines: it becomes lines of the input and never sends.
//
// The box grows with its text, one row per wrapped line, up to half the
// screen; the "> " mark is on the first row only. Up on the first row and
// down on the last walk the workspace's history (history.go), Ctrl+R
// searches it, and Ctrl+G or Ctrl+X Ctrl+E edits the input in
// $VISUAL/$EDITOR.

// inputState is the input box's state beside the textarea.
type inputState struct {
	hist   *history
	search *revSearch // Ctrl+R under way
	ctrlX  bool       // Ctrl+X pressed; Ctrl+E opens the editor
	top    int        // the first row shown when the text is taller than the box
}

// revSearch is a reverse search through the history.
type revSearch struct {
	query string
	at    int    // the entry shown, -1 for none
	draft string // the input before the search, back on Esc
}

// editorDone is the end of the external editor on path.
type editorDone struct {
	path, editor string
	err          error
}

// newInput returns the textarea of the input box.
func newInput() textarea.Model {
	ta := textarea.New()
	ta.Placeholder = "Ask anything; /help for commands"
	ta.ShowLineNumbers = false
	ta.SetPromptFunc(2, func(row int) string {
		if row == 0 {
			return "> "
		}
		return ""
	})
	ta.CharLimit = 0
	ta.MaxHeight = 0 // the box's own cap is inputCap
	ta.SetHeight(1)
	ta.KeyMap.InsertNewline.SetKeys("alt+enter", "ctrl+j")
	ta.Focus()
	return ta
}

// setHistory loads the workspace's history from path ("" keeps it in
// memory) and says so when the file cannot be read.
func (m *Model) setHistory(path string) {
	h, err := loadHistory(path)
	m.in.hist = h
	if err != nil {
		m.info("error", err.Error()+" (the history of this session is not saved there)")
		h.path = ""
	}
}

// inputKey handles the input box's own keys: the reverse search, the
// history, the external editor. handled false leaves k to the rest.
func (m *Model) inputKey(k tea.KeyMsg) (tea.Cmd, bool) {
	if m.in.search != nil {
		return m.searchKey(k)
	}
	if m.in.ctrlX {
		m.in.ctrlX = false
		if k.Type == tea.KeyCtrlE {
			return m.openEditor(), true
		}
	}
	switch k.Type {
	case tea.KeyCtrlX:
		m.in.ctrlX = true
		return nil, true
	case tea.KeyCtrlG:
		return m.openEditor(), true
	case tea.KeyCtrlR:
		m.in.search = &revSearch{at: -1, draft: m.input.Value()}
		return nil, true
	case tea.KeyUp:
		if k.Alt || m.input.Line() != 0 || m.input.LineInfo().RowOffset != 0 {
			return nil, false
		}
		if s, ok := m.in.hist.older(m.input.Value()); ok {
			m.setInput(s)
		}
		return nil, true
	case tea.KeyDown:
		li := m.input.LineInfo()
		if k.Alt || m.input.Line() != m.input.LineCount()-1 || li.RowOffset < li.Height-1 {
			return nil, false
		}
		if s, ok := m.in.hist.newer(); ok {
			m.setInput(s)
		}
		return nil, true
	}
	return nil, false
}

// searchKey types into the reverse search: runes narrow it, Ctrl+R finds
// the next older match, Backspace widens it, Enter (or any other key)
// keeps the match in the input, Esc, Ctrl+G and Ctrl+C put the input
// back as it was.
func (m *Model) searchKey(k tea.KeyMsg) (tea.Cmd, bool) {
	s := m.in.search
	switch k.Type {
	case tea.KeyRunes, tea.KeySpace:
		s.query += string(k.Runes)
		s.at = m.in.hist.search(s.query, len(m.in.hist.items))
	case tea.KeyBackspace:
		if r := []rune(s.query); len(r) > 0 {
			s.query = string(r[:len(r)-1])
		}
		s.at = m.in.hist.search(s.query, len(m.in.hist.items))
	case tea.KeyCtrlR:
		from := s.at
		if from < 0 {
			from = len(m.in.hist.items)
		}
		if i := m.in.hist.search(s.query, from); i >= 0 {
			s.at = i
		}
	case tea.KeyEsc, tea.KeyCtrlG, tea.KeyCtrlC:
		m.in.search = nil
		m.setInput(s.draft)
		return nil, true
	default:
		m.in.search = nil
		m.fitInput()
		return nil, true
	}
	if s.at >= 0 {
		m.setInput(m.in.hist.items[s.at])
	} else {
		m.setInput(s.draft)
	}
	return nil, true
}

// searchLine is the reverse search's prompt, shown above the input.
func (m *Model) searchLine() string {
	s := m.in.search
	state := "reverse search"
	if s.at < 0 && s.query != "" {
		state = "reverse search (no match)"
	}
	return stDim.Render(fmt.Sprintf("%s: %s▏  Ctrl+R older · Enter keep · Esc back", state, s.query))
}

// edit gives a key the search and history did not take to the input:
// runes (typed or pasted) as text, named keys to the textarea.
func (m *Model) edit(k tea.KeyMsg) tea.Cmd {
	if k.Type == tea.KeyRunes && !k.Alt {
		m.insertText(string(k.Runes))
		return nil
	}
	m.input.SetHeight(1 << 20) // the textarea must not scroll itself: inputView does
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.fitInput()
	return cmd
}

// insertText types s into the input at the cursor, as it is: a paste's
// CR LF and CR line ends become newlines.
func (m *Model) insertText(s string) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	m.input.SetHeight(1 << 20)
	m.input.InsertString(s)
	m.fitInput()
}

// setInput replaces the input with s, the cursor at its end.
func (m *Model) setInput(s string) {
	m.input.SetValue(s)
	m.fitInput()
}

// resetInput empties the input.
func (m *Model) resetInput() {
	m.input.Reset()
	m.fitInput()
}

// inputCap is the most rows the input box takes: half the screen.
func (m *Model) inputCap() int { return max(m.height/2, 1) }

// inputShown is the rows the input box takes on the screen.
func (m *Model) inputShown() int {
	n := min(m.input.Height(), m.inputCap())
	if m.in.search != nil {
		n++
	}
	return n
}

// fitInput sizes the textarea to all of its text (so it never scrolls
// itself) and moves the window inputView shows to keep the cursor in it.
func (m *Model) fitInput() {
	rows, cur := m.inputRows()
	m.input.SetHeight(rows)
	c := m.inputCap()
	switch {
	case rows <= c:
		m.in.top = 0
	case cur < m.in.top:
		m.in.top = cur
	case cur >= m.in.top+c:
		m.in.top = cur - c + 1
	}
	m.in.top = min(m.in.top, max(rows-c, 0))
}

// inputRows counts the input's rows as the textarea wraps them, and the
// row of the cursor.
func (m *Model) inputRows() (rows, cursor int) {
	if m.input.Value() == "" {
		return 1, 0
	}
	w := m.input.Width()
	for i, l := range strings.Split(m.input.Value(), "\n") {
		if i == m.input.Line() {
			cursor = rows + m.input.LineInfo().RowOffset
		}
		rows += wrapCount([]rune(l), w)
	}
	return max(rows, 1), cursor
}

// inputView is the input box: the rows of the textarea in the window
// fitInput keeps, under the search line while searching.
func (m *Model) inputView() string {
	v := m.input.View()
	if c := m.inputCap(); m.input.Height() > c {
		rows := strings.Split(v, "\n")
		top := min(m.in.top, max(len(rows)-c, 0))
		v = strings.Join(rows[top:min(top+c, len(rows))], "\n")
	}
	if m.in.search != nil {
		v = m.searchLine() + "\n" + v
	}
	return v
}

// wrapCount is the number of rows the textarea (bubbles v1.0.0,
// textarea.wrap) wraps a line of runes into at width w. Widths are kept
// as it goes, so a long line without spaces costs its length, not its
// square.
func wrapCount(runes []rune, w int) int {
	rows, line, word, spaces := 1, 0, 0, 0
	for _, r := range runes {
		rw := ansi.StringWidth(string(r))
		if unicode.IsSpace(r) {
			spaces++
		} else {
			word += rw
		}
		if spaces > 0 {
			if line+word+spaces > w {
				rows++
				line = word + spaces
			} else {
				line += word + spaces
			}
			spaces, word = 0, 0
		} else if word+rw > w {
			if line > 0 {
				rows++
			}
			line, word = word, 0
		}
	}
	if line+word+spaces >= w {
		rows++
	}
	return rows
}

// openEditor writes the input to a temporary file (0600) and runs
// $VISUAL or $EDITOR (vi without either) on it through the shell, as git
// does, with the terminal handed over; editorDone reads it back.
func (m *Model) openEditor() tea.Cmd {
	ed := os.Getenv("VISUAL")
	if ed == "" {
		ed = os.Getenv("EDITOR")
	}
	if ed == "" {
		ed = "vi"
	}
	f, err := os.CreateTemp("", "ollm-prompt-*.md")
	if err != nil {
		m.info("error", "external editor: "+err.Error())
		return nil
	}
	_, err = f.WriteString(m.input.Value())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		m.info("error", "external editor: "+err.Error())
		return nil
	}
	c := exec.Command("sh", "-c", ed+` "$1"`, "sh", f.Name())
	path := f.Name()
	return tea.ExecProcess(c, func(err error) tea.Msg { return editorDone{path: path, editor: ed, err: err} })
}

// editorDone puts what the editor saved into the input (without the
// newline editors end a file with) and removes the file.
func (m *Model) editorDone(e editorDone) {
	defer os.Remove(e.path)
	if e.err != nil {
		m.info("error", fmt.Sprintf("external editor %q: %v; the input is unchanged (set $VISUAL or $EDITOR)", e.editor, e.err))
		return
	}
	data, err := os.ReadFile(e.path)
	if err != nil {
		m.info("error", "external editor: "+err.Error()+"; the input is unchanged")
		return
	}
	m.setInput(strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r"))
}
