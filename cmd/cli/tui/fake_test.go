package tui

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ollm/ollm/core/bus"
)

type answer struct {
	id       string
	a        bus.Answer
	feedback string
}

type approval struct {
	id string
	ok bool
}

// fakeRuntime records what the model asked of it.
type fakeRuntime struct {
	events    chan Event
	prompts   []string
	cancels   int
	answers   []answer
	approvals []approval
	commands  []Command
	cmdOut    string
	cmdErr    error
	status    Status
	menu      []MenuItem // menu_test.go
}

func newFake() *fakeRuntime {
	return &fakeRuntime{events: make(chan Event, 16), status: Status{Model: "test-model", Generation: 3}}
}

func (f *fakeRuntime) Submit(p string) error { f.prompts = append(f.prompts, p); return nil }
func (f *fakeRuntime) Cancel()               { f.cancels++ }
func (f *fakeRuntime) Events() <-chan Event  { return f.events }
func (f *fakeRuntime) Answer(id string, a bus.Answer, feedback string) error {
	f.answers = append(f.answers, answer{id, a, feedback})
	return nil
}
func (f *fakeRuntime) Approve(id string, ok bool) error {
	f.approvals = append(f.approvals, approval{id, ok})
	return nil
}
func (f *fakeRuntime) Command(c Command) (string, bool, error) {
	f.commands = append(f.commands, c)
	if f.cmdErr != nil {
		return "", false, f.cmdErr
	}
	started := false
	switch c.Kind {
	case CmdSkill, CmdCompact, CmdReload, CmdClear:
		started = true
	case CmdModel:
		started = len(c.Args) > 0
	}
	return f.cmdOut, started, nil
}
func (f *fakeRuntime) Status() Status       { return f.status }
func (f *fakeRuntime) Commands() []MenuItem { return f.menu }

var errFake = errors.New("fake failure")

var ansiRE = regexp.MustCompile("\x1b\\[[0-9;?]*[a-zA-Z]")

// plain is the view without colours.
func plain(m *Model) string { return ansiRE.ReplaceAllString(m.View(), "") }

// send gives the model each message as a program would, with a user who
// reads a dialog before answering it: a dialog that opened is armed (as
// its armDelay tick would) before the next message. TestDialogIgnoresTypeAhead
// drives the arming itself.
func send(m *Model, msgs ...tea.Msg) {
	for _, msg := range msgs {
		m.Update(msg)
		if !m.armed && m.dialogID() != "" {
			m.View() // drawn, then the tick
			m.Update(armMsg{m.armSeq})
		}
	}
}

func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func key(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

func runeKey(r rune) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}} }

func newModel(t testing.TB) (*Model, *fakeRuntime) {
	t.Helper()
	f := newFake()
	m := New(f, Options{Width: 100, Height: 40, Style: "notty"})
	return m, f
}

func mustContain(t *testing.T, view string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(view, w) {
			t.Fatalf("view lacks %q:\n%s", w, view)
		}
	}
}

func mustNotContain(t *testing.T, view string, bad ...string) {
	t.Helper()
	for _, w := range bad {
		if strings.Contains(view, w) {
			t.Fatalf("view has %q:\n%s", w, view)
		}
	}
}
