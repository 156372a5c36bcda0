package tui

import (
	"strings"

	"github.com/muesli/reflow/wordwrap"
	"github.com/ollm/ollm/internal/fork/glamour"
)

// Markdown renders a streamed answer without falling behind: the text up to
// the last paragraph boundary outside a code fence is "committed" and
// rendered with glamour once per block, while the tail - the paragraph
// still being written - is word-wrapped as plain text on each delta. When
// the stream ends, Finish renders the whole answer once.
type Markdown struct {
	width    int
	style    string
	r        *glamour.TermRenderer
	buf      strings.Builder
	done     int      // bytes of buf already committed
	rendered []byte   // glamour output of the committed blocks
	lines    []string // rendered split into lines, kept in step
	inFence  bool     // the committed text ends inside a ``` fence
	scan     int      // bytes of buf scanned for boundaries
	lineFrom int      // start of the line being scanned
	final    bool
}

// NewMarkdown returns a renderer for width columns in the glamour style
// ("dark", "light", "notty", "ascii").
func NewMarkdown(width int, style string) *Markdown {
	if width < 20 {
		width = 20
	}
	return &Markdown{width: width, style: style}
}

func (m *Markdown) renderer() *glamour.TermRenderer {
	if m.r == nil {
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(m.style), glamour.WithWordWrap(m.width-2))
		if err != nil {
			r, _ = glamour.NewTermRenderer(glamour.WithStandardStyle("notty"), glamour.WithWordWrap(m.width-2))
		}
		m.r = r
	}
	return m.r
}

// SetWidth changes the width and re-renders what was committed.
func (m *Markdown) SetWidth(w int) {
	if w < 20 {
		w = 20
	}
	if w == m.width {
		return
	}
	m.width, m.r = w, nil
	if m.final {
		m.final = false
		m.Finish()
		return
	}
	if m.done > 0 {
		m.rendered = []byte(m.render(m.buf.String()[:m.done]))
		m.lines = splitLines(string(m.rendered))
	}
}

// Append adds a delta and commits any completed blocks.
func (m *Markdown) Append(s string) {
	if s == "" {
		return
	}
	m.final = false
	m.buf.WriteString(s)
	text := m.buf.String()
	boundary := -1
	// Scan only the new bytes, line by line, tracking fences: a blank line
	// outside a fence ends a block.
	for m.scan < len(text) {
		nl := strings.IndexByte(text[m.scan:], '\n')
		if nl < 0 {
			break
		}
		end := m.scan + nl
		line := text[m.lineFrom:end]
		if strings.HasPrefix(strings.TrimSpace(line), "```") || strings.HasPrefix(strings.TrimSpace(line), "~~~") {
			m.inFence = !m.inFence
		}
		if !m.inFence && strings.TrimSpace(line) == "" {
			boundary = end + 1
		}
		m.scan = end + 1
		m.lineFrom = m.scan
	}
	if boundary > m.done {
		block := text[m.done:boundary]
		if strings.TrimSpace(block) != "" {
			r := m.render(block)
			m.rendered = append(m.rendered, r...)
			m.lines = append(m.lines, splitLines(r)...)
		}
		m.done = boundary
	}
}

func (m *Markdown) render(s string) string {
	out, err := m.renderer().Render(s)
	if err != nil {
		return s
	}
	return strings.TrimRight(out, "\n") + "\n"
}

// Finish renders the whole text once, for the final view.
func (m *Markdown) Finish() {
	if m.final {
		return
	}
	text := m.buf.String()
	m.rendered = []byte(m.render(text))
	m.lines = splitLines(string(m.rendered))
	m.done = len(text)
	m.scan, m.lineFrom = len(text), len(text)
	m.final = true
}

// Reset replaces the text (an after_model rewrite) and finishes it.
func (m *Markdown) Reset(text string) {
	m.buf.Reset()
	m.buf.WriteString(text)
	m.done, m.scan, m.lineFrom, m.inFence, m.final = 0, 0, 0, false, false
	m.rendered, m.lines = nil, nil
	m.Finish()
}

// Text is the raw markdown so far.
func (m *Markdown) Text() string { return m.buf.String() }

// Lines are the committed blocks' lines plus the tail's, wrapped. Only the
// tail costs anything per call; the slice must not be modified.
func (m *Markdown) Lines() []string {
	tail := m.buf.String()[m.done:]
	if strings.TrimSpace(tail) == "" {
		return m.lines
	}
	t := splitLines(indent(wordwrap.String(tail, m.width-4), "  "))
	if len(m.lines) == 0 {
		return t
	}
	// Appending in place is safe: the tail lines past len(m.lines) are
	// never read after the next call, and commits overwrite them.
	return append(m.lines, t...)
}

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// View is the committed blocks rendered plus the tail wrapped.
func (m *Markdown) View() string {
	tail := m.buf.String()[m.done:]
	if tail == "" {
		return strings.TrimRight(string(m.rendered), "\n")
	}
	var b strings.Builder
	b.Write(m.rendered)
	b.WriteString(indent(wordwrap.String(tail, m.width-4), "  "))
	return strings.TrimRight(b.String(), "\n")
}

func indent(s, pad string) string {
	if s == "" {
		return s
	}
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}
