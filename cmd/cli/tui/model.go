package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ollm/ollm/core/bus"
)

// Options configure a Model.
type Options struct {
	Width, Height int    // initial size; a WindowSizeMsg replaces it
	Style         string // glamour style: "dark" (default), "light", "notty"
	// HistoryFile keeps the prompts sent in this workspace (input.go);
	// "" keeps them for the session only.
	HistoryFile string
	// Models lists and pulls models for /model (models.go); nil: /model
	// goes to the runtime only.
	Models Models
	// menu.go, mentions.go, trustview.go, resume.go: the workspace whose
	// files "@" completes ("" none); /trust; /resume's saved sessions.
	Workspace string
	Trust     Trust
	Sessions  Sessions
}

// entry is one block of the conversation.
type entry struct {
	kind  string // "user", "assistant", "thinking", "tool", "info", "error", "system", "blocked"
	text  string
	md    *Markdown
	tool  *card
	cache []string // rendered lines, for finished entries
}

// card is a tool call.
type card struct {
	id, name     string
	args         json.RawMessage
	status       ToolStatus
	output       strings.Builder
	message      string
	done, total  float64
	display, err string
	sandbox      string // the sandbox the call ran in
	// cards.go, spinner.go
	tool           string    // the name the policy judged: "server:tool" for an MCP tool
	diff           string    // the diff the user approved (write_file, edit_file)
	started, ended time.Time // while it ran (not while it waited for an answer)
	expanded       bool      // all of its output is shown
	folds          bool      // lines were folded away when last drawn
}

// Model is the bubbletea model of a session.
type Model struct {
	rt      Runtime
	opt     Options
	width   int
	height  int
	entries []*entry
	cards   map[string]*card
	cur     *entry // the assistant answer being streamed
	think   *entry // the reasoning being streamed
	input   textarea.Model
	in      inputState // history, search, editor; see input.go
	dlg     dialogScroll
	bodyH   int // rows for the conversation
	scroll  int // rows scrolled up from the bottom
	busy    bool
	confirm []ConfirmRequested // queue; the first is shown
	answer  textinput.Model    // the typed answer to an elicitation
	approve []Approval         // start-of-session approvals; the first is asked
	status  Status
	shown   string // the dialog shown (dialogID); see arm.go
	armed   bool   // it takes keys
	armSeq  int    // the wait under way
	drawn   string // the dialog the last View drew (dialogID)
	ctrlC   bool   // a Ctrl-C while idle; a second one quits
	quit    bool
	// spinner.go
	ticking   bool        // a spinner tick is in flight
	busySince time.Time   // when the running turn or job started
	orient    orientState // banner and model picker (banner.go, models.go)
	cmds      cmdsState   // the / and @ menus, /trust, /resume (menu.go)
}

// New returns the model for rt.
func New(rt Runtime, o Options) *Model {
	if o.Style == "" {
		o.Style = "dark"
	}
	if o.Width == 0 {
		o.Width = 100
	}
	if o.Height == 0 {
		o.Height = 30
	}
	ta := newInput()
	ans := textinput.New()
	ans.Prompt = "answer> "
	ans.Placeholder = "type the answer; Enter sends, Esc declines"
	ans.CharLimit = 0
	ans.Focus()
	m := &Model{rt: rt, opt: o, cards: map[string]*card{}, input: ta, answer: ans}
	m.status = rt.Status()
	m.setHistory(o.HistoryFile)
	m.resize(o.Width, o.Height)
	return m
}

// Init starts listening for runtime events.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(textarea.Blink, m.listen())
}

func (m *Model) listen() tea.Cmd {
	ch := m.rt.Events()
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return SessionEnded{}
		}
		return ev
	}
}

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.input.SetWidth(w)
	m.fitInput()
	m.layout()
	for i := range m.entries {
		if m.entries[i].md != nil {
			m.entries[i].md.SetWidth(w)
		}
		m.entries[i].cache = nil
	}
}

func (m *Model) layout() {
	bottom := m.inputShown() + 2 + m.popupRows() // input + status + separator + the / or @ menu
	if d := m.dialog(); d != "" {
		bottom = lineCount(d) + 1
	}
	h := m.height - bottom
	if h < 1 {
		h = 1
	}
	m.bodyH = h
}

// update handles one message (Update in spinner.go wraps it).
func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case armMsg:
		cmds = append(cmds, m.arm(msg.seq))
	case tea.KeyMsg:
		if cmd, handled := m.unarmedKey(msg); handled {
			m.refresh()
			return m, cmd
		}
		if cmd, handled := m.key(msg); handled {
			arm := m.rearm()
			m.refresh()
			return m, tea.Batch(cmd, arm)
		}
		cmds = append(cmds, m.edit(msg))
	case editorDone:
		m.editorDone(msg)
	case tea.MouseMsg:
		if msg.Button == tea.MouseButtonWheelUp {
			m.scrollBy(3)
		} else if msg.Button == tea.MouseButtonWheelDown {
			m.scrollBy(-3)
		}
		return m, nil
	case modelsListed, pullProgress, pullDone: // models.go
		cmds = append(cmds, m.orientMsg(msg))
	case cmdsMsg: // trustview.go, resume.go
		cmds = append(cmds, m.cmdsMsg(msg))
	case Event:
		m.handle(msg)
		if _, end := msg.(SessionEnded); end {
			m.quit = true
			return m, tea.Quit
		}
		cmds = append(cmds, m.listen())
	default:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		cmds = append(cmds, cmd)
	}
	cmds = append(cmds, m.rearm())
	m.refresh()
	return m, tea.Batch(cmds...)
}

// Apply feeds events to the model as a program would, for tests and
// benchmarks.
func (m *Model) Apply(evs ...Event) {
	for _, e := range evs {
		m.handle(e)
	}
	m.refresh()
}

func (m *Model) handle(ev Event) {
	switch e := ev.(type) {
	case ContentDelta:
		m.endThinking()
		if m.cur == nil {
			m.entries = append(m.entries, &entry{kind: "assistant", md: NewMarkdown(m.width, m.opt.Style)})
			m.cur = m.entries[len(m.entries)-1]
		}
		m.cur.md.Append(e.Text)
	case ThinkingDelta:
		if m.think == nil {
			m.entries = append(m.entries, &entry{kind: "thinking"})
			m.think = m.entries[len(m.entries)-1]
		}
		m.think.text += e.Text
	case AssistantDone:
		m.endThinking()
		if m.cur != nil {
			if e.Text != "" && e.Text != m.cur.md.Text() {
				m.cur.md.Reset(e.Text)
			} else {
				m.cur.md.Finish()
			}
		} else if e.Text != "" {
			md := NewMarkdown(m.width, m.opt.Style)
			md.Reset(e.Text)
			m.entries = append(m.entries, &entry{kind: "assistant", md: md})
		}
		m.cur = nil
	case ToolStarted:
		m.endStream()
		c := &card{id: e.ID, name: e.Name, args: e.Args, status: ToolRunning}
		m.cards[e.ID] = c
		m.entries = append(m.entries, &entry{kind: "tool", tool: c})
	case ToolProgress:
		c := m.card(e.ID)
		if len(e.Args) > 0 {
			c.args = e.Args
		}
		if e.Tool != "" {
			c.tool = e.Tool
		}
		if e.Text != "" {
			c.output.WriteString(e.Text)
		}
		if e.Message != "" {
			c.message = e.Message
		}
		if e.Total > 0 || e.Done > 0 {
			c.done, c.total = e.Done, e.Total
		}
		m.uncache(c)
	case ToolFinished:
		c := m.card(e.ID)
		c.status, c.display, c.err, c.sandbox = e.Status, e.Display, e.Error, e.Sandbox
		m.uncache(c)
	case ConfirmRequested:
		m.endStream()
		if e.CallID != "" {
			if c, ok := m.cards[e.CallID]; ok {
				c.status = ToolAsking
				c.diff = e.Details.Diff
				m.uncache(c)
			}
		}
		m.confirm = append(m.confirm, e)
	case ConfirmResolved:
		for i, c := range m.confirm {
			if c.ID == e.ID {
				if i == 0 {
					m.answer.Reset()
				}
				m.confirm = append(m.confirm[:i], m.confirm[i+1:]...)
				msg := "confirmation " + e.Answer
				if e.Reason != "" {
					msg += ": " + e.Reason
				}
				m.info("info", msg)
				break
			}
		}
	case Blocked:
		m.endStream()
		by := ""
		if e.By != "" {
			by = " by " + e.By
		}
		m.info("blocked", fmt.Sprintf("%s blocked%s: %s", e.Event, by, e.Reason))
	case SystemMessage:
		m.info("system", fmt.Sprintf("[%s] %s", e.Hook, e.Text))
	case Notice:
		m.info("info", e.Text)
	case Note:
		m.info("note-"+e.Level, "["+e.Source+"] "+e.Text)
	case InsertText:
		m.insertText(e.Text)
	case Replayed:
		switch e.Role {
		case "user":
			m.entries = append(m.entries, &entry{kind: "user", text: e.Text})
		case "assistant":
			md := NewMarkdown(m.width, m.opt.Style)
			md.Reset(e.Text)
			m.entries = append(m.entries, &entry{kind: "assistant", md: md})
		}
	case ErrorEvent:
		m.endStream()
		m.info("error", e.Err)
	case TurnDone:
		m.endStream()
		m.busy = false
		if e.Cancelled {
			m.info("info", "turn cancelled")
		} else if e.Err != "" && !e.Shown {
			m.info("error", e.Err)
		}
		m.status = m.rt.Status()
	case ContextChanged:
		m.status.Context = ContextUse{Used: e.Used, Window: e.Window}
	case MCPChanged:
		found := false
		for i := range m.status.MCP {
			if m.status.MCP[i].Name == e.Server.Name {
				m.status.MCP[i] = e.Server
				found = true
			}
		}
		if !found {
			m.status.MCP = append(m.status.MCP, e.Server)
		}
	case ApprovalsNeeded:
		m.approve = append(m.approve, e.Items...)
	case Banner, ModelChecked: // banner.go
		m.bannerEvent(e)
	case SessionEnded:
		m.endStream()
	}
}

func (m *Model) card(id string) *card {
	c, ok := m.cards[id]
	if !ok {
		c = &card{id: id, name: "tool", status: ToolRunning}
		m.cards[id] = c
		m.entries = append(m.entries, &entry{kind: "tool", tool: c})
	}
	return c
}

func (m *Model) uncache(c *card) {
	for i := len(m.entries) - 1; i >= 0; i-- {
		if m.entries[i].tool == c {
			m.entries[i].cache = nil
			return
		}
	}
}

func (m *Model) endThinking() {
	m.think = nil
}

func (m *Model) endStream() {
	m.endThinking()
	if m.cur != nil {
		m.cur.md.Finish()
		m.cur = nil
	}
}

func (m *Model) info(kind, text string) {
	m.entries = append(m.entries, &entry{kind: kind, text: text})
}

// key handles keys that are not typing; handled false passes the key to
// the input box.
func (m *Model) key(k tea.KeyMsg) (tea.Cmd, bool) {
	if k.Type != tea.KeyCtrlC {
		m.ctrlC = false
	}
	if len(m.approve) > 0 {
		return m.approvalKey(k)
	}
	if len(m.confirm) > 0 {
		return m.confirmKey(k)
	}
	if m.orientModal() { // the model picker or the pull question (models.go)
		return m.orientKey(k)
	}
	if m.cmdsModal() { // /trust's dialog or /resume's picker (menu.go)
		return m.cmdsKey(k)
	}
	if cmd, ok := m.popupKey(k); ok { // the / or @ menu (menu.go)
		return cmd, true
	}
	if cmd, ok := m.inputKey(k); ok {
		return cmd, true
	}
	switch k.Type {
	case tea.KeyCtrlC:
		if m.busy {
			m.rt.Cancel()
			return nil, true
		}
		if m.input.Value() != "" {
			m.resetInput()
			return nil, true
		}
		if m.ctrlC {
			m.quit = true
			return tea.Quit, true
		}
		m.ctrlC = true
		m.info("info", "press Ctrl-C again to quit")
		return nil, true
	case tea.KeyCtrlD:
		if m.input.Value() == "" {
			m.quit = true
			return tea.Quit, true
		}
	case tea.KeyPgUp:
		m.scrollBy(m.bodyH / 2)
		return nil, true
	case tea.KeyPgDown:
		m.scrollBy(-m.bodyH / 2)
		return nil, true
	case tea.KeyCtrlO: // cards.go: expand or collapse the last folded card
		m.toggleExpand()
		m.scrollBy(0)
		return nil, true
	case tea.KeyEnter:
		if k.Alt {
			return nil, false
		}
		return m.submit(), true
	}
	return nil, false
}

func (m *Model) submit() tea.Cmd {
	line := m.input.Value()
	if strings.TrimSpace(line) == "" {
		return nil
	}
	c, err := ParseCommand(line)
	if err == nil && c.Kind == CmdNone && m.busy {
		m.info("error", "a turn is running; Ctrl-C cancels it (the input is kept)")
		return nil
	}
	if herr := m.in.hist.add(line); herr != nil {
		m.info("error", herr.Error())
	}
	m.resetInput()
	m.scroll = 0
	if err != nil {
		m.info("error", err.Error())
		return nil
	}
	switch c.Kind {
	case CmdNone:
		p := PromptText(line)
		m.entries = append(m.entries, &entry{kind: "user", text: p})
		if err := m.rt.Submit(p); err != nil {
			m.info("error", err.Error())
			return nil
		}
		m.busy = true
		return nil
	case CmdHelp:
		m.info("info", HelpText)
		return nil
	case CmdQuit:
		m.quit = true
		return tea.Quit
	default:
		m.entries = append(m.entries, &entry{kind: "user", text: strings.TrimSpace(line)})
		if cmd, ok := m.modelCommand(c); ok { // /model [NAME] lists or pulls (models.go)
			return cmd
		}
		if cmd, ok := m.cmdsCommand(c); ok { // /trust, /resume (menu.go)
			return cmd
		}
		out, started, err := m.rt.Command(c)
		if err != nil {
			m.info("error", err.Error())
			return nil
		}
		if c.Kind == CmdClear {
			m.entries, m.cards, m.cur, m.think, m.scroll = nil, map[string]*card{}, nil, nil, 0
		}
		m.busy = m.busy || started
		if out != "" {
			m.info("info", out)
		}
		m.status = m.rt.Status()
		return nil
	}
}

func (m *Model) confirmKey(k tea.KeyMsg) (tea.Cmd, bool) {
	c := m.confirm[0]
	switch c.Details.Tool {
	case ElicitTool:
		return m.elicitKey(k)
	case SampleTool:
		if k.String() == "a" || k.String() == "2" {
			return nil, true // "always" means nothing for a server's request
		}
	}
	if m.dialogScrollKey(k) {
		return nil, true
	}
	var a bus.Answer
	switch {
	case k.Type == tea.KeyCtrlC:
		a = bus.Deny
		if m.busy {
			m.rt.Cancel()
		}
	case k.String() == "y" || k.String() == "1" || k.Type == tea.KeyEnter:
		a = bus.AllowOnce
	case (k.String() == "a" || k.String() == "2") && c.Details.Trust == "":
		a = bus.AllowAlways // a trust file's dialog has no "always"
	case (k.String() == "s" || k.String() == "4") && c.Details.AlwaysNarrow != "":
		a = bus.AllowAlwaysNarrow
	case k.String() == "n" || k.String() == "3" || k.Type == tea.KeyEsc:
		a = bus.Deny
	default:
		return nil, true // the dialog has the keyboard
	}
	m.answerConfirm(a, "")
	return nil, true
}

// elicitKey types into the answer of an MCP server's request for input:
// Enter sends it, Esc declines, Ctrl-C declines and cancels the turn.
func (m *Model) elicitKey(k tea.KeyMsg) (tea.Cmd, bool) {
	switch k.Type {
	case tea.KeyEnter:
		m.answerConfirm(bus.AllowOnce, m.answer.Value())
		return nil, true
	case tea.KeyEsc:
		m.answerConfirm(bus.Deny, "")
		return nil, true
	case tea.KeyCtrlC:
		if m.busy {
			m.rt.Cancel()
		}
		m.answerConfirm(bus.Deny, "")
		return nil, true
	case tea.KeyPgUp:
		m.scrollBy(m.bodyH / 2)
		return nil, true
	case tea.KeyPgDown:
		m.scrollBy(-m.bodyH / 2)
		return nil, true
	}
	if k.Type == tea.KeyRunes && !k.Alt {
		k.Paste = true // text, never a key name (see input.go)
	}
	var cmd tea.Cmd
	m.answer, cmd = m.answer.Update(k)
	return cmd, true
}

// answerConfirm answers the request shown with a and feedback.
func (m *Model) answerConfirm(a bus.Answer, feedback string) {
	c := m.confirm[0]
	m.confirm = m.confirm[1:]
	m.answer.Reset()
	if err := m.rt.Answer(c.ID, a, feedback); err != nil {
		m.info("error", err.Error())
	}
	if c.CallID != "" {
		if cd, ok := m.cards[c.CallID]; ok && cd.status == ToolAsking {
			if a == bus.Deny {
				cd.status = ToolDenied
			} else {
				cd.status = ToolRunning
			}
			m.uncache(cd)
		}
	}
	switch c.Details.Tool {
	case ElicitTool:
		verb := "answered"
		if a == bus.Deny {
			verb = "declined"
		}
		m.info("info", fmt.Sprintf("%s: %s", c.Details.Reason, verb))
	case SampleTool:
		verb := "allowed"
		if a == bus.Deny {
			verb = "denied"
		}
		m.info("info", fmt.Sprintf("%s: %s", c.Details.Reason, verb))
	default:
		m.info("info", fmt.Sprintf("%s: %s", c.Details.Tool, answerLabel(a)))
	}
}

func answerLabel(a bus.Answer) string {
	switch a {
	case bus.AllowOnce:
		return "allowed once"
	case bus.AllowAlways:
		return "allowed always"
	case bus.AllowAlwaysNarrow:
		return "allowed always (narrow rule)"
	}
	return "denied"
}

func (m *Model) approvalKey(k tea.KeyMsg) (tea.Cmd, bool) {
	if m.dialogScrollKey(k) {
		return nil, true
	}
	it := m.approve[0]
	var ok bool
	switch k.String() {
	case "a", "y", "enter":
		ok = true
	case "s", "n", "esc":
		ok = false
	case "ctrl+c":
		m.quit = true
		return tea.Quit, true
	default:
		return nil, true
	}
	m.approve = m.approve[1:]
	if err := m.rt.Approve(it.ID, ok); err != nil {
		m.info("error", err.Error())
		return nil, true
	}
	verb := "skipped"
	if ok {
		verb = "approved"
	}
	m.info("info", fmt.Sprintf("%s %s %s", verb, it.Kind, it.Name))
	return nil, true
}

// Busy reports whether a turn is running.
func (m *Model) Busy() bool { return m.busy }

// Quitting reports whether the user asked to quit.
func (m *Model) Quitting() bool { return m.quit }

func lineCount(s string) int { return strings.Count(s, "\n") + 1 }

func sortedKeys(v map[string]any) []string {
	ks := make([]string, 0, len(v))
	for k := range v {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
