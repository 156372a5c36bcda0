package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/reflow/truncate"

	"github.com/ollm/ollm/core/skills"
)

// The command menu: typing "/" at the start of the input opens a list of
// every command - the built-in ones, extensions' commands, skills (Agent
// Skills, Claude and Gemini CLI commands) and MCP servers' prompts - with
// descriptions, narrowed by what follows the "/". Up/Down choose, Tab
// completes the name into the input, Enter runs it (or completes it when
// it needs arguments), Esc closes it until the input changes. The "@"
// file menu (mentions.go) shares the same popup above the status line.

// MenuItem is one command of the "/" menu.
type MenuItem struct {
	Name        string // without the "/"
	Args        string // what it takes, as help shows it: "[name]", "<topic>"; "" none
	Description string
	Source      string // "extension NAME", "skill", "Gemini command", "MCP prompt (SERVER)", ...
	NeedsArgs   bool   // Enter completes it instead of running it
}

// builtinMenu are the TUI's own commands (slash.go), in help order.
var builtinMenu = []MenuItem{
	{Name: "help", Description: "the commands and keys"},
	{Name: "model", Args: "[name]", Description: "pick, switch or pull the model"},
	{Name: "tools", Description: "the tools the model can call"},
	{Name: "mcp", Description: "MCP servers and their state"},
	{Name: "ext", Description: "extensions and their commands"},
	{Name: "skills", Description: "skills; run one with /<skill> [args]"},
	{Name: "trust", Description: "review what this workspace runs and approve it"},
	{Name: "resume", Args: "[id]", Description: "switch to a saved session"},
	{Name: "reload", Description: "re-resolve the profile (hooks, MCP, skills, policy)"},
	{Name: "clear", Description: "clear the screen and start a new conversation"},
	{Name: "compact", Description: "summarize the conversation to free context"},
	{Name: "quit", Description: "end the session"},
}

// menuRows is the most items the popup shows at once.
const menuRows = 8

// cmdsState is the Model's state for the menus, /trust and /resume
// (menu.go, mentions.go, trustview.go, resume.go).
type cmdsState struct {
	pop    popupState
	trust  trustState
	resume resumeState
}

// popupState is the "/" or "@" menu under way.
type popupState struct {
	kind   string // "" closed, "cmd", "file"
	value  string // the input it was computed for
	at     string // the input and cursor it was computed for
	recall bool   // a key that may bring back a prompt from the history went to the input
	query  string // what it is narrowed by
	items  []MenuItem
	sel    int
	closed string   // the input Esc closed it at: closed until the input changes
	files  []string // the workspace's files, listed when "@" opened the menu
	more   bool     // the listing stopped at its limit
}

// Commands lists the runtime's commands for the "/" menu: extensions'
// commands, then skills (Claude and Gemini CLI commands among them) and
// MCP prompts, by name.
func (r *AgentRuntime) Commands() []MenuItem {
	var out []MenuItem
	seen := map[string]bool{}
	if r.opt.Skills != nil {
		for _, e := range r.opt.Skills.List() {
			seen[e.Name] = true
			it := MenuItem{Name: e.Name, Description: e.Skill.Description, Source: skillSource(e.Skill)}
			if len(e.Placeholders) > 0 {
				it.Args, it.NeedsArgs = "<"+strings.Join(e.Placeholders, "> <")+">", true
			} else if e.Kind == skills.KindCommand {
				it.Args = "[args]"
			}
			out = append(out, it)
		}
	}
	if r.opt.ExtCommands != nil {
		for _, c := range r.opt.ExtCommands.Commands() {
			if seen[c.Name] { // a skill of that name wins (agent.go skill)
				continue
			}
			out = append(out, MenuItem{Name: c.Name, Args: "[args]", Description: c.Description, Source: "extension " + c.Source})
		}
	}
	return out
}

// skillSource says where a skill comes from, in the user's terms.
func skillSource(s skills.Skill) string {
	file := filepath.ToSlash(s.File)
	switch {
	case s.Source == skills.SourceMCP:
		return "MCP prompt (" + s.Extension + ")"
	case strings.Contains(file, "/.claude/"):
		return "Claude " + map[bool]string{true: "command", false: "skill"}[s.Kind == skills.KindCommand]
	case s.Kind == skills.KindCommand:
		return "Gemini command"
	case s.Extension != "":
		return "skill (" + s.Extension + ")"
	}
	return "skill"
}

// syncPopup opens, narrows or closes the menu for the input as it is now.
func (m *Model) syncPopup() {
	p := &m.cmds.pop
	v := m.input.Value()
	li := m.input.LineInfo()
	at := fmt.Sprintf("%s\x00%d:%d", v, m.input.Line(), li.StartColumn+li.ColumnOffset)
	if at == p.at {
		return
	}
	p.at = at
	if p.recall && v != p.value { // a prompt from the history: no menu on it
		p.closed = v
	}
	p.recall = false
	if v != p.closed {
		p.closed = ""
	}
	kind, query := "", ""
	switch {
	case p.closed != "" || m.in.search != nil:
	case strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") && !strings.ContainsAny(v, " \t\n"):
		kind, query = "cmd", strings.ToLower(v[1:])
	default:
		if q, ok := m.mentionAtEnd(v); ok {
			kind, query = "file", q
		}
	}
	if kind != p.kind || query != p.query {
		p.sel = 0
	}
	if kind == "file" && p.kind != "file" {
		m.listFiles() // mentions.go: each time the menu opens, so new files show
	}
	p.kind, p.value, p.query = kind, v, query
	switch kind {
	case "cmd":
		p.items = filterMenu(m.menuItems(), query)
	case "file":
		p.items = m.fileItems(query)
	default:
		p.items = nil
	}
	if p.sel >= len(p.items) {
		p.sel = max(len(p.items)-1, 0)
	}
}

// menuItems are the built-in commands, then the runtime's.
func (m *Model) menuItems() []MenuItem {
	items := append([]MenuItem(nil), builtinMenu...)
	for _, it := range m.rt.Commands() {
		if !Reserved(it.Name) {
			items = append(items, it)
		}
	}
	return items
}

// filterMenu keeps the items whose name starts with q, then those that
// hold it elsewhere in the name.
func filterMenu(items []MenuItem, q string) []MenuItem {
	var first, then []MenuItem
	for _, it := range items {
		name := strings.ToLower(it.Name)
		switch {
		case strings.HasPrefix(name, q):
			first = append(first, it)
		case strings.Contains(name, q):
			then = append(then, it)
		}
	}
	return append(first, then...)
}

// popupRows is the rows the menu takes above the status line.
func (m *Model) popupRows() int {
	m.syncPopup()
	p := &m.cmds.pop
	switch {
	case p.kind == "":
		return 0
	case len(p.items) == 0:
		return 2
	}
	return min(len(p.items), menuRows) + 1
}

// popupKey is the menu's keys while it is open; handled false passes the
// key on to the input box.
func (m *Model) popupKey(k tea.KeyMsg) (tea.Cmd, bool) {
	m.syncPopup()
	p := &m.cmds.pop
	if p.kind == "" {
		// ↑/↓ and Ctrl-R walk the history (input.go): a "/command" they
		// bring back opens no menu, so the next ↑ goes on walking.
		p.recall = k.Type == tea.KeyUp || k.Type == tea.KeyDown || k.Type == tea.KeyCtrlR || m.in.search != nil
		return nil, false
	}
	switch k.Type {
	case tea.KeyUp, tea.KeyCtrlP:
		if p.sel > 0 {
			p.sel--
		}
		return nil, true
	case tea.KeyDown, tea.KeyCtrlN:
		if p.sel < len(p.items)-1 {
			p.sel++
		}
		return nil, true
	case tea.KeyEsc:
		p.closed, p.kind, p.at = m.input.Value(), "", ""
		return nil, true
	case tea.KeyTab:
		if len(p.items) > 0 {
			m.complete(p.items[p.sel])
		}
		return nil, true
	case tea.KeyEnter:
		if k.Alt || len(p.items) == 0 {
			return nil, false
		}
		it := p.items[p.sel]
		if p.kind == "file" || it.NeedsArgs {
			m.complete(it)
			return nil, true
		}
		m.setInput("/" + it.Name)
		return m.submit(), true
	}
	return nil, false
}

// complete puts the chosen item into the input: "/name" (and a space
// when it takes arguments), or the file in place of the "@" word.
func (m *Model) complete(it MenuItem) {
	p := &m.cmds.pop
	if p.kind == "file" {
		m.completeFile(it.Name)
		return
	}
	s := "/" + it.Name
	if it.Args != "" {
		s += " "
	}
	m.setInput(s)
}

// popupView draws the menu: one row per item around the chosen one, and
// a line of keys; "" when closed.
func (m *Model) popupView() string {
	p := &m.cmds.pop
	if p.kind == "" {
		return ""
	}
	w := max(m.width-2, 10)
	var b strings.Builder
	if len(p.items) == 0 {
		if p.kind == "cmd" {
			b.WriteString(stDim.Render(fmt.Sprintf("  no command matches /%s", p.query)) + "\n")
		} else {
			b.WriteString(stDim.Render(fmt.Sprintf("  no file matches @%s", p.query)) + "\n")
		}
		b.WriteString(stDim.Render("  esc close") + "\n")
		return b.String()
	}
	start := 0
	if p.sel >= menuRows {
		start = p.sel - menuRows + 1
	}
	nameW := 0
	for _, it := range p.items {
		nameW = max(nameW, len(it.Name)+len(it.Args)+2)
	}
	nameW = min(nameW, w/2)
	for i := start; i < len(p.items) && i < start+menuRows; i++ {
		it := p.items[i]
		mark := "  "
		if i == p.sel {
			mark = "▸ "
		}
		var line string
		// Names and descriptions come from extensions, MCP servers and the
		// workspace: drawn as text, never as escape sequences (cards.go clean).
		if p.kind == "file" {
			line = mark + "@" + clean(it.Name)
		} else {
			name := "/" + clean(it.Name)
			if it.Args != "" {
				name += " " + clean(it.Args)
			}
			line = fmt.Sprintf("%s%-*s %s", mark, nameW, name, clean(it.Description))
			if it.Source != "" {
				line += stDim.Render("  · " + clean(it.Source))
			}
		}
		line = truncate.StringWithTail(line, uint(w), "…")
		if i == p.sel {
			line = stTitle.Render(line)
		}
		b.WriteString(line + "\n")
	}
	keys := "  ↑/↓ choose · tab complete · enter run · esc close"
	if p.kind == "file" {
		keys = fmt.Sprintf("  %d of %d · ↑/↓ choose · tab/enter attach · esc close", min(len(p.items), menuRows), len(p.items))
		if p.more {
			keys += " · the listing stopped at " + fmt.Sprint(maxMentionFiles) + " files"
		}
	} else if len(p.items) > menuRows {
		keys = fmt.Sprintf("  %d commands ·", len(p.items)) + keys[1:]
	}
	b.WriteString(stDim.Render(keys) + "\n")
	return b.String()
}

// cmdsModal reports whether /trust's dialog or /resume's picker has the
// keyboard.
func (m *Model) cmdsModal() bool { return m.cmds.trust.plan != nil || m.cmds.resume.open }

// cmdsDialogID names /trust's dialog or /resume's picker for arm.go.
func (m *Model) cmdsDialogID() string {
	switch {
	case m.cmds.trust.plan != nil:
		return "trust:" + m.cmds.trust.plan.Digest
	case m.cmds.resume.open:
		return "resume"
	}
	return ""
}

// cmdsDialog draws /trust's dialog or /resume's picker.
func (m *Model) cmdsDialog() string {
	if m.cmds.trust.plan != nil {
		return m.trustView()
	}
	return m.resumeView()
}

func (m *Model) cmdsKey(k tea.KeyMsg) (tea.Cmd, bool) {
	if m.cmds.trust.plan != nil {
		return m.trustKey(k)
	}
	return m.resumeKey(k)
}

// cmdsCommand runs /trust and /resume; handled false leaves c to the
// runtime.
func (m *Model) cmdsCommand(c Command) (tea.Cmd, bool) {
	switch c.Kind {
	case CmdTrust:
		return m.trustCommand(), true
	case CmdResume:
		return m.resumeCommand(c), true
	}
	return nil, false
}

// cmdsMsg handles the commands' messages.
func (m *Model) cmdsMsg(msg cmdsMsg) tea.Cmd {
	switch msg := msg.(type) {
	case trustPlanned:
		return m.trustPlanned(msg)
	case sessionsListed:
		return m.sessionsListed(msg)
	}
	return nil
}
