package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/policy"
)

// screen is the view without colours, each row without the trailing
// padding and without a dialog's side borders.
func screen(m *Model) string {
	rows := strings.Split(plain(m), "\n")
	for i, r := range rows {
		r = strings.TrimRight(r, " ")
		r = strings.TrimRight(strings.TrimSuffix(r, "║"), " ")
		rows[i] = strings.TrimPrefix(r, "║ ")
	}
	return strings.Join(rows, "\n")
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func paste(s string) tea.KeyMsg {
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true}
}

// typeChunks sends s as the terminal reader splits one read: runs of
// runes, each space a KeySpace.
func typeChunks(m *Model, s string) {
	for i, w := range strings.Split(s, " ") {
		if i > 0 {
			m.Update(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
		}
		if w != "" {
			m.Update(runes(w))
		}
	}
}

// Words that are key names arrive as text: as one message, and as the
// pieces bubbletea's reader makes of one read ("clean", " ", "up", ...).
// Without the runes going in as text, "up" moved the cursor and the
// prompt was "clean  tmp" (checked by passing KeyRunes to the textarea).
func TestKeyNameWordsAreText(t *testing.T) {
	for _, tc := range []struct {
		name string
		send func(m *Model, s string)
	}{
		{"one message", func(m *Model, s string) { m.Update(runes(s)) }},
		{"as one read splits", typeChunks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range []string{
				"clean up tmp",
				"go down left right home end delete backspace enter tab esc pgup pgdown ctrl+a ctrl+e",
			} {
				m, f := newModel(t)
				tc.send(m, s)
				send(m, key(tea.KeyEnter))
				if len(f.prompts) != 1 || f.prompts[0] != s {
					t.Fatalf("Submit got %q, want %q", f.prompts, s)
				}
			}
		})
	}
}

// A bracketed paste of three lines (CR line ends, as terminals send
// them) becomes three lines of the input and is not sent; the box grows
// to show them with "> " on its first row only; Enter then sends all.
func TestPasteIsTextAndNeverSends(t *testing.T) {
	m, f := newModel(t)
	m.Update(paste("first line\rsecond up\r\nthird"))
	if len(f.prompts) != 0 {
		t.Fatalf("the paste sent %q", f.prompts)
	}
	if got := m.input.Value(); got != "first line\nsecond up\nthird" {
		t.Fatalf("input = %q", got)
	}
	v := screen(m)
	mustContain(t, v, "> first line\n  second up\n  third")
	if strings.Count(v, "> ") != 1 {
		t.Fatalf("the prompt mark is on more than the first row:\n%s", v)
	}
	if n := lineCount(v); n != 39 { // layout leaves the last row free
		t.Fatalf("the view has %d rows, want the screen's 40 less one:\n%s", n, v)
	}
	send(m, key(tea.KeyEnter))
	if len(f.prompts) != 1 || f.prompts[0] != "first line\nsecond up\nthird" {
		t.Fatalf("Submit got %q", f.prompts)
	}
	if m.input.Height() != 1 {
		t.Fatalf("the input kept %d rows after sending", m.input.Height())
	}
}

// The input grows one row per line up to half the screen, then scrolls
// inside that, keeping the cursor's row on screen.
func TestInputGrowsToHalfTheScreen(t *testing.T) {
	m, _ := newModel(t) // 100x40: at most 20 rows
	if v := screen(m); !strings.HasSuffix(v, "\n> Ask anything; /help for commands") {
		t.Fatalf("the empty input is not one row:\n%s", v)
	}
	for i := 1; i <= 30; i++ {
		if i > 1 {
			m.Update(key(tea.KeyCtrlJ))
		}
		m.Update(runes(fmt.Sprintf("row %d", i)))
		want := min(i, 20)
		if got := m.inputShown(); got != want {
			t.Fatalf("after %d lines the input shows %d rows, want %d", i, got, want)
		}
		v := plain(m)
		if n := lineCount(v); n != 39 {
			t.Fatalf("the view has %d rows, want 39", n)
		}
		mustContain(t, v, fmt.Sprintf("row %d", i))
	}
	v := screen(m)
	mustNotContain(t, v, "row 10\n")
	for range 29 {
		m.Update(key(tea.KeyUp))
	}
	v = screen(m)
	mustContain(t, v, "> row 1\n", "row 20")
	mustNotContain(t, v, "row 21")
	// A long line wraps into rows of its own.
	m2, _ := newModel(t)
	m2.Update(runes(strings.Repeat("word ", 60)))
	if got := m2.inputShown(); got != 4 {
		t.Fatalf("300 columns at 98 wide take %d rows, want 4:\n%s", got, plain(m2))
	}
}

// Up on the first row walks back through what was sent, down comes back
// to the draft; a new Model on the same file (ollm restarted in the
// workspace) has it too. The file is 0600; a prompt starting with a
// space is not kept.
func TestHistoryPerWorkspace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "history", "ws.jsonl")
	f := newFake()
	m := New(f, Options{Width: 100, Height: 40, Style: "notty", HistoryFile: file})
	for _, p := range []string{"first", "second\nwith two lines", " secret"} {
		m.Update(runes(p))
		send(m, key(tea.KeyEnter), TurnDone{})
	}
	m.Update(runes("draft"))
	m.Update(key(tea.KeyUp))
	if got := m.input.Value(); got != "second\nwith two lines" {
		t.Fatalf("up recalled %q", got)
	}
	m.Update(key(tea.KeyUp)) // the cursor is on the last row: up moves in the text
	if got := m.input.Value(); got != "second\nwith two lines" {
		t.Fatalf("up on the second row recalled %q", got)
	}
	m.Update(key(tea.KeyUp))
	if got := m.input.Value(); got != "first" {
		t.Fatalf("up on the first row recalled %q", got)
	}
	m.Update(key(tea.KeyUp))
	if got := m.input.Value(); got != "first" {
		t.Fatalf("up at the oldest gave %q", got)
	}
	m.Update(key(tea.KeyDown))
	m.Update(key(tea.KeyDown))
	if got := m.input.Value(); got != "draft" {
		t.Fatalf("down past the newest gave %q, want the draft", got)
	}

	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file mode %v", fi.Mode().Perm())
	}
	if data, _ := os.ReadFile(file); strings.Contains(string(data), "secret") {
		t.Fatalf("a prompt starting with a space was kept:\n%s", data)
	}

	m2 := New(newFake(), Options{Width: 100, Height: 40, Style: "notty", HistoryFile: file})
	m2.Update(key(tea.KeyUp))
	if got := m2.input.Value(); got != "second\nwith two lines" {
		t.Fatalf("after a restart up recalled %q", got)
	}
}

// The file keeps the newest historyMax prompts once it holds twice as
// many.
func TestHistoryBounded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	var b strings.Builder
	for i := range 2*historyMax + 1 {
		l, _ := json.Marshal(fmt.Sprintf("p%d", i))
		b.Write(append(l, '\n'))
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := loadHistory(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.items) != historyMax || h.items[len(h.items)-1] != fmt.Sprintf("p%d", 2*historyMax) {
		t.Fatalf("kept %d, last %q", len(h.items), h.items[len(h.items)-1])
	}
	data, _ := os.ReadFile(file)
	if n := strings.Count(string(data), "\n"); n != historyMax {
		t.Fatalf("the file holds %d lines", n)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
}

// Ctrl+R finds the newest prompt holding what is typed, Ctrl+R again an
// older one; Enter keeps it in the input without sending, Esc puts the
// draft back.
func TestHistoryReverseSearch(t *testing.T) {
	m, f := newModel(t)
	for _, p := range []string{"fix the build", "run tests", "fix the docs"} {
		m.Update(runes(p))
		send(m, key(tea.KeyEnter), TurnDone{})
	}
	m.Update(runes("draft"))
	m.Update(key(tea.KeyCtrlR))
	m.Update(runes("fix"))
	mustContain(t, plain(m), "reverse search: fix", "> fix the docs")
	m.Update(key(tea.KeyCtrlR))
	mustContain(t, plain(m), "> fix the build")
	m.Update(key(tea.KeyEnter))
	if m.input.Value() != "fix the build" || len(f.prompts) != 3 {
		t.Fatalf("input %q, prompts %q", m.input.Value(), f.prompts)
	}
	mustNotContain(t, plain(m), "reverse search")

	m.Update(key(tea.KeyCtrlR))
	m.Update(runes("zzz"))
	mustContain(t, plain(m), "no match")
	m.Update(key(tea.KeyEsc))
	if m.input.Value() != "fix the build" {
		t.Fatalf("Esc left %q", m.input.Value())
	}
}

// The editor's file comes back into the input (without its final
// newline) and is removed; Ctrl+G and Ctrl+X Ctrl+E start the editor.
func TestExternalEditor(t *testing.T) {
	t.Setenv("VISUAL", "true")
	m, _ := newModel(t)
	m.Update(runes("draft"))
	if _, cmd := m.Update(key(tea.KeyCtrlG)); cmd == nil {
		t.Fatal("Ctrl+G ran nothing")
	}
	m.Update(key(tea.KeyCtrlX))
	if _, cmd := m.Update(key(tea.KeyCtrlE)); cmd == nil {
		t.Fatal("Ctrl+X Ctrl+E ran nothing")
	}
	path := filepath.Join(t.TempDir(), "prompt.md")
	if err := os.WriteFile(path, []byte("edited\nin the editor\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m.Update(editorDone{path: path, editor: "true"})
	if got := m.input.Value(); got != "edited\nin the editor" {
		t.Fatalf("input = %q", got)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the file was not removed: %v", err)
	}
	m.Update(editorDone{path: path, editor: "nope", err: fmt.Errorf("exit status 127")})
	mustContain(t, plain(m), `external editor "nope": exit status 127; the input is unchanged`)
	if got := m.input.Value(); got != "edited\nin the editor" {
		t.Fatalf("a failed editor changed the input to %q", got)
	}
}

// Enter while a turn runs keeps what was typed.
func TestEnterWhileBusyKeepsInput(t *testing.T) {
	m, _ := newModel(t)
	m.Update(runes("one"))
	send(m, key(tea.KeyEnter))
	m.Update(runes("two"))
	send(m, key(tea.KeyEnter))
	if m.input.Value() != "two" {
		t.Fatalf("input = %q", m.input.Value())
	}
}

// An elicitation's answer is text too.
func TestElicitAnswerKeyNameWords(t *testing.T) {
	m, f := newModel(t)
	send(m, elicitRequest("e1"))
	m.Update(runes("up"))
	m.Update(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
	m.Update(runes("left"))
	send(m, key(tea.KeyEnter))
	if len(f.answers) != 1 || f.answers[0].feedback != "up left" {
		t.Fatalf("answers = %v", f.answers)
	}
}

func longDiff(n int) string {
	var b strings.Builder
	b.WriteString("--- a/big.txt\n+++ b/big.txt\n@@ -0,0 +1," + fmt.Sprint(n) + " @@\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "+line %d\n", i)
	}
	return b.String()
}

// At 100x24 a 60-line diff shows a window with "lines a-b of N"; down,
// j, PgDn and End move it to the last line, up, k, PgUp and Home back;
// every line is seen on the way; the answer still works after.
func TestDialogScrollsLongDiff(t *testing.T) {
	f := newFake()
	m := New(f, Options{Width: 100, Height: 24, Style: "notty"})
	c := confirmWrite()
	c.Details.Diff = longDiff(60)
	send(m, ToolStarted{ID: "c1", Name: "write_file"}, c)
	v := screen(m)
	mustContain(t, v, "Allow write_file?", "\n+line 1\n", "lines 1-", " of 63", "[y] allow once")
	if n := lineCount(v); n != 23 {
		t.Fatalf("the view has %d rows:\n%s", n, v)
	}
	seen := map[int]bool{}
	look := func() {
		v := screen(m) + "\n"
		for i := 1; i <= 60; i++ {
			if strings.Contains(v, fmt.Sprintf("\n+line %d\n", i)) {
				seen[i] = true
			}
		}
	}
	look()
	for range 70 {
		m.Update(key(tea.KeyDown))
		look()
	}
	v = plain(m)
	mustContain(t, v, "+line 60", "of 63", "the end")
	for i := 1; i <= 60; i++ {
		if !seen[i] {
			t.Fatalf("line %d was never shown", i)
		}
	}
	m.Update(key(tea.KeyHome))
	mustContain(t, plain(m), "lines 1-")
	m.Update(runes("j"))
	mustContain(t, plain(m), "lines 2-")
	m.Update(runes("k"))
	mustContain(t, plain(m), "lines 1-")
	m.Update(key(tea.KeyPgDown))
	mustNotContain(t, plain(m), "lines 1-")
	m.Update(key(tea.KeyEnd))
	mustContain(t, plain(m), "+line 60")
	m.Update(key(tea.KeyPgUp))
	mustNotContain(t, plain(m), "+line 60")
	if len(f.answers) != 0 {
		t.Fatalf("scrolling answered: %v", f.answers)
	}
	m.Update(runes("y"))
	if len(f.answers) != 1 || f.answers[0].a != bus.AllowOnce {
		t.Fatalf("answers = %v", f.answers)
	}
}

// A long command wraps whole (nothing cut) and scrolls the same way.
func TestDialogScrollsLongCommand(t *testing.T) {
	m, _ := newModel(t)
	m.resize(100, 24)
	var b strings.Builder
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&b, "echo step-%03d && ", i)
	}
	b.WriteString("echo the-last-step")
	send(m, ConfirmRequested{ID: "r1", Details: policy.Details{Tool: "shell", Command: b.String(), Reason: "ask"}})
	mustContain(t, plain(m), "$ echo step-001", "lines 1-")
	mustNotContain(t, plain(m), "the-last-step")
	m.Update(key(tea.KeyEnd))
	mustContain(t, plain(m), "the-last-step")
}

// Scroll keys before the dialog takes answers scroll it and do not
// restart the wait; an answer key still does, and answers nothing.
func TestDialogScrollBeforeArmed(t *testing.T) {
	m, f := newModel(t)
	m.resize(100, 24)
	c := confirmWrite()
	c.Details.Diff = longDiff(60)
	m.Update(c)
	seq := m.armSeq
	m.Update(key(tea.KeyDown))
	m.Update(runes("j"))
	if m.armSeq != seq || m.dlg.top != 2 {
		t.Fatalf("armSeq %d→%d, top %d", seq, m.armSeq, m.dlg.top)
	}
	m.Update(runes("y"))
	if m.armSeq == seq || len(f.answers) != 0 {
		t.Fatalf("a y before arming: armSeq %d, answers %v", m.armSeq, f.answers)
	}
	// The next dialog starts at its top.
	m.View()
	m.Update(armMsg{m.armSeq})
	c2 := c
	c2.ID = "req-2"
	m.Update(c2)
	m.Update(runes("y"))
	mustContain(t, plain(m), "lines 1-")
}

// A write to a trust file says so, above what it decides.
func TestDialogNamesTrustFile(t *testing.T) {
	m, _ := newModel(t)
	c := confirmWrite()
	c.Details.Trust = ".git/config belongs to git: git runs the commands its config names"
	c.Details.Description = "Edit .git/config - a file that decides what runs: " + c.Details.Trust
	send(m, c)
	v := plain(m)
	mustContain(t, v, "⚠ trust file: runs code later", "[y] allow this one write")
	mustNotContain(t, v, "[a] allow always")
}

// inputRows counts rows as the textarea wraps them (its LineInfo().Height
// is the rows of the line the cursor is on).
func TestWrapCountMatchesTextarea(t *testing.T) {
	ta := newInput()
	ta.SetWidth(40)
	for _, s := range []string{
		"", "a", strings.Repeat("x", 37), strings.Repeat("x", 38), strings.Repeat("x", 39), strings.Repeat("x", 200),
		strings.Repeat("word ", 30), strings.Repeat("word  ", 13), "tail spaces      ", strings.Repeat("日本語", 30),
		"mixed 日本語 words and a " + strings.Repeat("long", 20) + " end", strings.Repeat(" ", 50),
	} {
		ta.SetValue(s)
		if got, want := wrapCount([]rune(s), ta.Width()), ta.LineInfo().Height; got != want {
			t.Errorf("wrapCount(%q) = %d, the textarea makes %d rows", s, got, want)
		}
	}
}

// Text that arrives as a paste or as several runes in one message is not
// an answer, even once the dialog takes keys: only a single key press is.
func TestDialogAnswerIsOneKey(t *testing.T) {
	m, f := newModel(t)
	send(m, confirmWrite())
	for _, k := range []tea.KeyMsg{paste("y"), paste("y\r"), runes("yes"), runes("yy"), runes("n\r")} {
		m.Update(k)
		if len(f.answers) != 0 {
			t.Fatalf("%q answered: %v", k.String(), f.answers)
		}
	}
	m.Update(runes("n"))
	if len(f.answers) != 1 || f.answers[0].a != bus.Deny {
		t.Fatalf("answers = %v", f.answers)
	}
}

// Answers count only after the dialog was drawn: the tick of its wait
// coming before any View (a stalled program) starts the wait again, and
// a y then answers nothing; drawn and ticked, y answers.
func TestDialogArmsOnlyOnceDrawn(t *testing.T) {
	m, f := newModel(t)
	m.Update(confirmWrite())
	seq := m.armSeq
	m.Update(armMsg{seq})
	if m.armed || m.armSeq == seq {
		t.Fatalf("armed %v before the dialog was drawn (seq %d→%d)", m.armed, seq, m.armSeq)
	}
	m.Update(runes("y"))
	if len(f.answers) != 0 {
		t.Fatalf("an undrawn dialog was answered: %v", f.answers)
	}
	mustContain(t, plain(m), "Allow write_file?", "what was typed before this appeared is ignored")
	m.Update(armMsg{m.armSeq})
	mustContain(t, plain(m), "[y] allow once")
	m.Update(runes("y"))
	if len(f.answers) != 1 || f.answers[0].a != bus.AllowOnce {
		t.Fatalf("answers = %v", f.answers)
	}
}
