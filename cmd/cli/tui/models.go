package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/reflow/truncate"

	"github.com/ollm/ollm/core/llm"
)

// Models lists and downloads the session provider's models: /model with
// no name opens a picker of List; a model that is not installed is pulled
// (after asking) when CanPull.
type Models interface {
	// List is what the server offers (Ollama /api/tags, /v1/models).
	List(ctx context.Context) ([]llm.InstalledModel, error)
	// CanPull: the provider downloads models (Ollama).
	CanPull() bool
	// Pull downloads name, reporting each line of progress.
	Pull(ctx context.Context, name string, progress func(llm.PullProgress)) error
	// Where names the server for messages ("Ollama at http://...").
	Where() string
}

// orientState is the Model's state for the banner and the model picker
// (banner.go, models.go).
type orientState struct {
	banner    Banner
	hasBanner bool
	check     *ModelChecked
	entry     *entry // the banner in the conversation

	picking bool                 // the picker is open
	loading bool                 // its list is on the way
	list    []llm.InstalledModel // what it offers
	sel     int
	ask     string // a model not installed: asking whether to pull it
	pulling string // the model being pulled
	pullFor string // the model of the last pull line
	pull    *entry // the pull's progress line in the conversation
	layers  map[string]llm.PullProgress
	status  string
	ch      chan tea.Msg // the running pull's messages
}

// Messages of the model commands.
type (
	modelsListed struct {
		list []llm.InstalledModel
		err  error
		want string // /model NAME: switch to it, or ask to pull it
	}
	pullProgress struct{ p llm.PullProgress }
	pullDone     struct {
		name string
		err  error
	}
)

// orientModal reports whether the picker or the pull question has the
// keyboard.
func (m *Model) orientModal() bool { return m.orient.picking || m.orient.ask != "" }

// orientDialogID names the picker or question for arm.go.
func (m *Model) orientDialogID() string {
	switch {
	case m.orient.ask != "":
		return "pull:" + m.orient.ask
	case m.orient.picking && !m.orient.loading:
		return "models"
	}
	return ""
}

// modelCommand runs /model [NAME] when the session can list models:
// without a name it opens the picker; with one it checks the name is
// installed first. handled false leaves the command to the runtime.
func (m *Model) modelCommand(c Command) (tea.Cmd, bool) {
	md := m.opt.Models
	if md == nil || c.Kind != CmdModel {
		return nil, false
	}
	want := ""
	if len(c.Args) > 0 {
		want = c.Args[0]
	} else {
		m.orient.picking, m.orient.loading, m.orient.list, m.orient.sel = true, true, nil, 0
	}
	return func() tea.Msg {
		list, err := md.List(context.Background())
		return modelsListed{list: list, err: err, want: want}
	}, true
}

// orientMsg handles the model commands' messages.
func (m *Model) orientMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case modelsListed:
		if msg.want != "" {
			switch {
			case msg.err != nil || llm.HasModel(msg.list, msg.want):
				// the runtime says why it cannot switch, if it cannot
				return m.switchTo(msg.want)
			case m.opt.Models.CanPull():
				m.orient.ask = msg.want
			default:
				m.info("error", fmt.Sprintf("model %s is not offered by %s; /model lists what is", msg.want, m.opt.Models.Where()))
			}
			return nil
		}
		m.orient.loading = false
		if msg.err != nil {
			m.orient.picking = false
			m.info("error", "listing the models failed: "+msg.err.Error())
			return nil
		}
		m.orient.list = msg.list
		for i, x := range msg.list {
			if x.Name == m.status.Model || x.Name == m.status.Model+":latest" {
				m.orient.sel = i
			}
		}
	case pullProgress:
		p := msg.p
		if p.Digest != "" {
			m.orient.layers[p.Digest] = p
		}
		m.orient.status = p.Status
		m.drawPull()
		return m.nextPull()
	case pullDone:
		name := msg.name
		m.orient.pulling, m.orient.ch = "", nil
		if msg.err != nil {
			m.orient.status = "failed"
			m.drawPull()
			m.info("error", msg.err.Error())
			return nil
		}
		m.orient.status = "success"
		m.drawPull()
		if c := m.orient.check; c != nil && c.Model == name {
			c.Installed = true
			if m.orient.entry != nil {
				m.orient.entry.cache = nil
			}
		}
		return m.switchTo(name)
	}
	return nil
}

// switchTo runs /model NAME on the session.
func (m *Model) switchTo(name string) tea.Cmd {
	if m.busy {
		m.info("error", "a turn is running; /model "+name+" once it ends")
		return nil
	}
	out, started, err := m.rt.Command(Command{Kind: CmdModel, Args: []string{name}, Rest: name})
	if err != nil {
		m.info("error", err.Error())
		return nil
	}
	m.busy = m.busy || started
	if out != "" {
		m.info("info", out)
	}
	m.status = m.rt.Status()
	return nil
}

// orientKey is the picker's and the pull question's keys.
func (m *Model) orientKey(k tea.KeyMsg) (tea.Cmd, bool) {
	o := &m.orient
	if o.ask != "" {
		name := o.ask
		switch k.String() {
		case "y", "enter":
			o.ask = ""
			return m.startPull(name), true
		case "n", "esc", "ctrl+c":
			o.ask = ""
			m.info("info", fmt.Sprintf("not pulling %s; `ollm model pull %s` or /model %s pulls it later", name, name, name))
		}
		return nil, true
	}
	if pickerMove(k.String(), &o.sel, len(o.list)) {
		return nil, true
	}
	switch k.String() {
	case "esc", "ctrl+c", "q":
		o.picking = false
	case "enter":
		if o.loading || len(o.list) == 0 {
			o.picking = false
			return nil, true
		}
		o.picking = false
		m.entries = append(m.entries, &entry{kind: "user", text: "/model " + o.list[o.sel].Name})
		return m.switchTo(o.list[o.sel].Name), true
	}
	return nil, true
}

// startPull downloads name in the background; its progress arrives as
// messages until pullDone.
func (m *Model) startPull(name string) tea.Cmd {
	if m.orient.pulling != "" {
		m.info("error", "a pull is under way: "+m.orient.pulling)
		return nil
	}
	md := m.opt.Models
	ch := make(chan tea.Msg, 64)
	m.orient.pulling, m.orient.pullFor, m.orient.ch, m.orient.status = name, name, ch, "starting"
	m.orient.layers = map[string]llm.PullProgress{}
	m.orient.pull = &entry{kind: "pull"}
	m.entries = append(m.entries, m.orient.pull)
	m.drawPull()
	go func() {
		err := md.Pull(context.Background(), name, func(p llm.PullProgress) { ch <- pullProgress{p} })
		ch <- pullDone{name: name, err: err}
		close(ch)
	}()
	return m.nextPull()
}

func (m *Model) nextPull() tea.Cmd {
	ch := m.orient.ch
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return msg
	}
}

// drawPull redraws the pull's line: bytes over every layer seen.
func (m *Model) drawPull() {
	e := m.orient.pull
	if e == nil {
		return
	}
	var done, total int64
	for _, l := range m.orient.layers {
		done += l.Completed
		total += l.Total
	}
	name := m.orient.pullFor
	f := 0.0
	if total > 0 {
		f = float64(done) / float64(total)
	}
	if m.orient.status == "success" {
		f = 1
	}
	e.text = fmt.Sprintf("⇣ pull %s %s %3.0f%% %s/%s  %s", name, progressBar(f, 30), f*100, llm.FormatSize(done), llm.FormatSize(total), m.orient.status)
	e.cache = nil
}

// pickerView is the model list, or the pull question.
func (m *Model) pickerView() string {
	o := &m.orient
	w := m.width - 4
	var b strings.Builder
	if o.ask != "" {
		b.WriteString(stTitle.Render(fmt.Sprintf("Model %s is not installed", o.ask)) + "\n")
		b.WriteString(fmt.Sprintf("Pull it into %s now? It is downloaded once and then runs locally.\n", m.opt.Models.Where()))
		b.WriteString(m.keysLine("[y] pull and switch   [n] not now"))
		return stDialog.Width(w).Render(b.String())
	}
	b.WriteString(stTitle.Render("Models") + stDim.Render("  "+m.opt.Models.Where()) + "\n")
	if o.loading {
		b.WriteString(stDim.Render("listing…") + "\n")
		b.WriteString(stDim.Render("[esc] close"))
		return stDialog.Width(w).Render(b.String())
	}
	if len(o.list) == 0 {
		b.WriteString("no models installed; `/model NAME` pulls one (e.g. /model qwen3:8b)\n")
	}
	room := max(m.height*2/3-4, 3)
	start := 0
	if o.sel >= room {
		start = o.sel - room + 1
	}
	for i := start; i < len(o.list) && i < start+room; i++ {
		x := o.list[i]
		mark := "  "
		if i == o.sel {
			mark = "▸ "
		}
		cur := ""
		if x.Name == m.status.Model || x.Name == m.status.Model+":latest" {
			cur = " (current)"
		}
		line := fmt.Sprintf("%s%-32s %9s %8s %-8s%s", mark, x.Name, sizeOrBlank(x.Size), x.ParameterSize, x.Quantization, cur)
		line = truncate.StringWithTail(strings.TrimRight(line, " "), uint(max(w-2, 10)), "…")
		if i == o.sel {
			line = stTitle.Render(line)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString(m.keysLine("[↑/↓] choose   [enter] switch   [esc] close   (/model NAME pulls one not listed)"))
	return stDialog.Width(w).Render(b.String())
}

func sizeOrBlank(n int64) string {
	if n == 0 {
		return ""
	}
	return llm.FormatSize(n)
}
