package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ollm/ollm/core/llm"
)

// fakeModels lists list; Pull reports steps then err.
type fakeModels struct {
	list    []llm.InstalledModel
	listErr error
	steps   []llm.PullProgress
	pullErr error
	pulled  []string
	hold    chan struct{} // Pull waits for it after the first step, when set
}

func (f *fakeModels) List(context.Context) ([]llm.InstalledModel, error) { return f.list, f.listErr }
func (f *fakeModels) CanPull() bool                                      { return true }
func (f *fakeModels) Where() string                                      { return "Ollama at http://fake" }
func (f *fakeModels) Pull(_ context.Context, name string, p func(llm.PullProgress)) error {
	f.pulled = append(f.pulled, name)
	for i, s := range f.steps {
		p(s)
		if i == 1 && f.hold != nil {
			<-f.hold
		}
	}
	return f.pullErr
}

// run feeds the message a command returns back into the model until the
// chain ends, as the program would (batches are opened).
func run(m *Model, cmd tea.Cmd) {
	for cmd != nil {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				run(m, c)
			}
			return
		}
		if _, spin := msg.(spinMsg); msg == nil || spin {
			return // a spinner tick asks for the next one while busy: never ends
		}
		_, cmd = m.Update(msg)
		if !m.armed && m.dialogID() != "" {
			m.View() // a dialog takes keys once drawn (arm.go)
			m.Update(armMsg{m.armSeq})
		}
	}
}

func pressed(m *Model, k tea.KeyMsg) {
	_, cmd := m.Update(k)
	run(m, cmd)
}

var twoModels = []llm.InstalledModel{
	{Name: "llama3.2:3b", Size: 2019393189, ParameterSize: "3.2B", Quantization: "Q4_K_M"},
	{Name: "test-model:latest", Size: 4920753328, ParameterSize: "8.0B", Quantization: "Q4_K_M"},
}

// /model alone lists the installed models with size, parameters and
// quantization; down and enter switch to the one chosen; esc closes.
func TestModelPicker(t *testing.T) {
	m, f := newModel(t)
	m.opt.Models = &fakeModels{list: twoModels}
	typeText(m, "/model")
	pressed(m, key(tea.KeyEnter))
	v := plain(m)
	mustContain(t, v, "Models  Ollama at http://fake", "llama3.2:3b", "2.0 GB", "3.2B", "test-model:latest", "4.9 GB", "(current)", "[enter] switch")
	mustContain(t, v, "▸ test-model:latest") // the current one is selected
	pressed(m, key(tea.KeyUp))
	mustContain(t, plain(m), "▸ llama3.2:3b")
	pressed(m, key(tea.KeyEnter))
	if len(f.commands) != 1 || f.commands[0].Kind != CmdModel || f.commands[0].Args[0] != "llama3.2:3b" {
		t.Fatalf("commands = %+v", f.commands)
	}
	mustNotContain(t, plain(m), "[enter] switch")

	typeText(m, "/model")
	pressed(m, key(tea.KeyEnter))
	mustContain(t, plain(m), "[enter] switch")
	pressed(m, key(tea.KeyEsc))
	mustNotContain(t, plain(m), "[enter] switch")
	if len(f.commands) != 1 {
		t.Fatalf("esc switched: %+v", f.commands)
	}
}

// /model NAME with NAME installed switches at once; not installed asks,
// then pulls with a progress line and switches when it is done; "n"
// leaves it.
func TestModelPullAsksThenSwitches(t *testing.T) {
	m, f := newModel(t)
	fm := &fakeModels{list: twoModels, hold: make(chan struct{}), steps: []llm.PullProgress{
		{Status: "pulling manifest"},
		{Status: "pulling 0123456789ab", Digest: "sha256:0123456789ab", Total: 2_000_000_000, Completed: 800_000_000},
		{Status: "pulling 0123456789ab", Digest: "sha256:0123456789ab", Total: 2_000_000_000, Completed: 2_000_000_000},
		{Status: "verifying sha256 digest"}, {Status: "success"}}}
	m.opt.Models = fm
	typeText(m, "/model llama3.2:3b")
	pressed(m, key(tea.KeyEnter))
	if len(f.commands) != 1 || f.commands[0].Args[0] != "llama3.2:3b" {
		t.Fatalf("an installed model did not switch: %+v", f.commands)
	}
	send(m, TurnDone{}) // the switch's job ended

	typeText(m, "/model qwen3:8b")
	pressed(m, key(tea.KeyEnter))
	mustContain(t, plain(m), "Model qwen3:8b is not installed", "[y] pull and switch")
	pressed(m, runeKey('n'))
	mustContain(t, plain(m), "not pulling qwen3:8b")
	if len(fm.pulled) != 0 || len(f.commands) != 1 {
		t.Fatalf("n pulled or switched: %v %+v", fm.pulled, f.commands)
	}

	typeText(m, "/model qwen3:8b")
	pressed(m, key(tea.KeyEnter))
	m.Update(runeKey('y')) // its command would read what the test reads below
	ch := m.orient.ch
	for !strings.Contains(plain(m), "40%") {
		m.Update(<-ch) // the pull is held after its 40% line
	}
	v := plain(m)
	mustContain(t, v, "⇣ pull qwen3:8b [████████████░░░░░░░░░░░░░░░░░░]  40% 800 MB/2.0 GB  pulling 0123456789ab", "pulling qwen3:8b")
	if len(f.commands) != 1 {
		t.Fatalf("switched before the pull ended: %+v", f.commands)
	}
	close(fm.hold)
	for msg := range ch {
		m.Update(msg)
	}
	mustContain(t, plain(m), "⇣ pull qwen3:8b [██████████████████████████████] 100% 2.0 GB/2.0 GB  success")
	if len(f.commands) != 2 || f.commands[1].Args[0] != "qwen3:8b" {
		t.Fatalf("no switch after the pull: %+v", f.commands)
	}
}

// A pull that fails says why and does not switch.
func TestModelPullFails(t *testing.T) {
	m, f := newModel(t)
	m.opt.Models = &fakeModels{pullErr: errors.New("pulling nope into Ollama at http://fake failed: pull model manifest: file does not exist"),
		steps: []llm.PullProgress{{Status: "pulling manifest"}}}
	typeText(m, "/model nope")
	pressed(m, key(tea.KeyEnter))
	pressed(m, runeKey('y'))
	mustContain(t, plain(m), "failed", "pull model manifest: file does not exist")
	if len(f.commands) != 0 {
		t.Fatalf("switched after a failed pull: %+v", f.commands)
	}
}
