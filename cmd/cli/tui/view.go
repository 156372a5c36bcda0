package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/reflow/truncate"
	"github.com/muesli/reflow/wordwrap"
)

var (
	stUser     = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12"))
	stDim      = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	stError    = lipgloss.NewStyle().Foreground(lipgloss.Color("9"))
	stOK       = lipgloss.NewStyle().Foreground(lipgloss.Color("10"))
	stWarn     = lipgloss.NewStyle().Foreground(lipgloss.Color("11"))
	stSystem   = lipgloss.NewStyle().Foreground(lipgloss.Color("13"))
	stCard     = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("8")).Padding(0, 1)
	stDialog   = lipgloss.NewStyle().Border(lipgloss.DoubleBorder()).BorderForeground(lipgloss.Color("11")).Padding(0, 1)
	stStatus   = lipgloss.NewStyle().Foreground(lipgloss.Color("7")).Background(lipgloss.Color("236"))
	stDiffAdd  = lipgloss.NewStyle().Foreground(lipgloss.Color("10"))
	stDiffDel  = lipgloss.NewStyle().Foreground(lipgloss.Color("9"))
	stDiffHunk = lipgloss.NewStyle().Foreground(lipgloss.Color("14"))
)

// refresh re-lays out after a change; drawing happens in View.
func (m *Model) refresh() { m.layout() }

// scrollBy moves the conversation n rows up (negative: down).
func (m *Model) scrollBy(n int) {
	m.scroll += n
	if m.scroll < 0 {
		m.scroll = 0
	}
	if total := m.totalLines(); m.scroll > total-m.bodyH {
		m.scroll = max(total-m.bodyH, 0)
	}
}

func (m *Model) totalLines() int {
	n := len(m.activityLines())
	for _, e := range m.entries {
		n += len(m.entryLines(e))
	}
	return n
}

// body is the bodyH rows of the conversation ending scroll rows above the
// bottom. It walks entries from the last one, so a long session costs only
// what is on screen.
func (m *Model) body() string {
	need := m.bodyH + m.scroll
	act := m.activityLines() // spinner.go
	chunks := [][]string{act}
	have := len(act)
	for i := len(m.entries) - 1; i >= 0 && have < need; i-- {
		ls := m.entryLines(m.entries[i])
		if have+len(ls) > need {
			ls = ls[len(ls)-(need-have):]
		}
		chunks = append(chunks, ls)
		have += len(ls)
	}
	rows := make([]string, 0, have)
	for i := len(chunks) - 1; i >= 0; i-- {
		rows = append(rows, chunks[i]...)
	}
	end := len(rows) - m.scroll
	if end < 0 {
		end = 0
	}
	start := max(end-m.bodyH, 0)
	rows = rows[start:end]
	for len(rows) < m.bodyH {
		rows = append(rows, "")
	}
	return strings.Join(rows, "\n")
}

func (m *Model) entryLines(e *entry) []string {
	if e.cache != nil {
		return e.cache
	}
	if e.kind == "assistant" {
		ls := e.md.Lines()
		if e.md.final {
			e.cache = ls
		}
		return ls
	}
	s, cacheable := m.entryView(e)
	ls := strings.Split(s, "\n")
	if cacheable {
		e.cache = ls
	}
	return ls
}

func (m *Model) entryView(e *entry) (string, bool) {
	w := m.width - 2
	var s string
	cacheable := true
	switch e.kind {
	case "user":
		s = "\n" + stUser.Render("> ") + wordwrap.String(e.text, w-2)
	case "assistant":
		s = e.md.View()
		cacheable = e.md.final
	case "thinking":
		s = stDim.Render(indent(wordwrap.String("thinking: "+lastLines(e.text, 6), w-2), "  "))
		cacheable = false
	case "tool":
		s = m.cardView(e.tool)
		cacheable = e.tool.status != ToolRunning && e.tool.status != ToolAsking
	case "error":
		s = stError.Render(wordwrap.String("✗ "+e.text, w))
	case "blocked":
		s = stWarn.Render(wordwrap.String("⊘ "+e.text, w))
	case "system":
		s = stSystem.Render(wordwrap.String("⚙ "+e.text, w))
	case "note-error":
		s = stError.Render(wordwrap.String("✗ "+e.text, w))
	case "note-warn":
		s = stWarn.Render(wordwrap.String("! "+e.text, w))
	case "note-success":
		s = stOK.Render(wordwrap.String("✓ "+e.text, w))
	case "note-display":
		s = wordwrap.String(e.text, w)
	case "banner":
		s = m.bannerView()
	case "pull":
		s = e.text
	case "note-info":
		s = stDim.Render(wordwrap.String("• "+e.text, w))
	default:
		s = stDim.Render(wordwrap.String(e.text, w))
	}
	return s, cacheable
}

// statusIcon is the mark before a card's header.
func statusIcon(c *card) string {
	switch c.status {
	case ToolOK:
		return stOK.Render("✓")
	case ToolError:
		return stError.Render("✗")
	case ToolDenied:
		return stWarn.Render("⊘")
	case ToolAsking:
		return stWarn.Render("?")
	}
	return stWarn.Render(spinFrame(c.started))
}

// cardView is a call's card: "✓ Run `go test ./...`  3.2s", the sandbox,
// progress, then the output, error and diff (cards.go), folded when long.
func (m *Model) cardView(c *card) string {
	w := m.width - 4
	h := toolHeader(c.name, c.tool, c.args)
	title, tail := h.done(), ""
	switch c.status {
	case ToolRunning:
		title = h.running()
		if !c.started.IsZero() {
			tail = elapsed(now().Sub(c.started))
		}
	case ToolAsking:
		tail = "waiting for you"
	case ToolError:
		tail = "failed"
	case ToolDenied:
		tail = "denied"
	}
	if c.status != ToolRunning && !c.started.IsZero() && c.ended.Sub(c.started) >= time.Second {
		tail = strings.TrimSpace(tail + " " + elapsed(c.ended.Sub(c.started)))
	}
	room := w - 4 - 2 - lipgloss.Width(tail) - 2
	var b strings.Builder
	b.WriteString(statusIcon(c) + " " + truncate.StringWithTail(title, uint(max(room, 10)), "…"))
	if tail != "" {
		b.WriteString("  " + stDim.Render(tail))
	}
	if c.sandbox != "" {
		b.WriteString("\n" + stDim.Render("sandbox: "+c.sandbox))
	}
	if c.status == ToolRunning && (c.total > 0 || c.message != "") {
		b.WriteByte('\n')
		if c.total > 0 {
			b.WriteString(progressBar(c.done/c.total, 30) + fmt.Sprintf(" %.0f/%.0f", c.done, c.total))
		}
		if c.message != "" {
			b.WriteString(" " + clean(c.message))
		}
	}
	if body := m.cardBody(c, w-4, h.done()); body != "" {
		b.WriteString("\n" + body)
	}
	return stCard.Width(w).Render(b.String())
}

func progressBar(f float64, n int) string {
	if f < 0 {
		f = 0
	}
	if f > 1 {
		f = 1
	}
	k := int(f * float64(n))
	return "[" + strings.Repeat("█", k) + strings.Repeat("░", n-k) + "]"
}

func clipLines(s string, n, w int) string {
	lines := strings.Split(s, "\n")
	more := 0
	if len(lines) > n {
		more = len(lines) - n
		lines = lines[:n]
	}
	for i, l := range lines {
		lines[i] = truncate.StringWithTail(l, uint(max(w, 10)), "…")
	}
	if more > 0 {
		lines = append(lines, fmt.Sprintf("… %d more lines", more))
	}
	return strings.Join(lines, "\n")
}

func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// keysLine is a dialog's keys once it takes them; before that (armDelay
// after it opened, see arm.go) a line saying that earlier keys are ignored.
func (m *Model) keysLine(keys string) string {
	if !m.armed {
		return stDim.Render("(keys in a moment: what was typed before this appeared is ignored)")
	}
	return lipgloss.NewStyle().Bold(true).Render(keys)
}

// dialog is the confirmation or approval box, or "".
func (m *Model) dialog() string {
	switch {
	case len(m.approve) > 0:
		return m.approvalView()
	case len(m.confirm) > 0:
		return m.confirmView(m.confirm[0])
	case m.orientModal():
		return m.pickerView()
	case m.cmdsModal(): // /trust, /resume (menu.go)
		return m.cmdsDialog()
	}
	return ""
}

func (m *Model) confirmView(c ConfirmRequested) string {
	switch c.Details.Tool {
	case ElicitTool:
		return m.elicitView(c)
	case SampleTool:
		return m.sampleView(c)
	}
	d := c.Details
	w := m.width - 4
	var b strings.Builder
	title := fmt.Sprintf("Allow %s?", d.Tool)
	b.WriteString(stBold.Render(title))
	if d.Risk != "" {
		b.WriteString(stDim.Render(fmt.Sprintf("  (%s, risk %s)", d.Kind, d.Risk)))
	}
	if len(m.confirm) > 1 {
		b.WriteString(stDim.Render(fmt.Sprintf("  +%d more waiting", len(m.confirm)-1)))
	}
	b.WriteByte('\n')
	if d.Trust != "" {
		b.WriteString(stWarn.Bold(true).Render(trustLine) + "\n")
	}
	if d.Description != "" {
		b.WriteString(wordwrap.String(d.Description, w-2) + "\n")
	}
	reason := d.Reason
	if d.Message != "" {
		reason = d.Message
	}
	if reason != "" {
		b.WriteString(stDim.Render(wordwrap.String("why: "+reason, w-2)) + "\n")
	}
	for _, l := range d.Locations {
		b.WriteString(stDim.Render("at: "+l) + "\n")
	}
	// The body scrolls: the command, then the diff or the arguments.
	var body []string
	if d.Command != "" {
		body = hardLines("$ "+d.Command, w-2, nil)
	}
	if d.Diff != "" {
		body = append(body, hardLines(strings.TrimRight(d.Diff, "\n"), w-2, diffStyle)...)
	} else if len(d.Params) > 0 && d.Command == "" {
		var out bytes.Buffer
		if json.Indent(&out, d.Params, "", "  ") != nil {
			out.Reset()
			out.Write(d.Params)
		}
		body = append(body, hardLines(out.String(), w-2, nil)...)
	}
	var foot strings.Builder
	if d.Always != "" {
		foot.WriteString(stDim.Render(wordwrap.String("[a] saves: "+d.Always, w-2)) + "\n")
	}
	keys := "[y] allow once   [a] allow always   [n] deny"
	if d.AlwaysNarrow != "" {
		foot.WriteString(stDim.Render(wordwrap.String("[s] saves only: "+d.AlwaysNarrow, w-2)) + "\n")
		keys = "[y] allow once   [a] allow always   [s] always, this sub-command only   [n] deny"
	}
	if d.Trust != "" {
		keys = "[y] allow this one write   [n] deny   (no \"always\" for a file that decides what runs)"
	}
	foot.WriteString(m.keysLine(keys))
	if len(body) > 0 {
		body = m.scrollBody(body, m.dialogRoom(b.String(), foot.String()))
		b.WriteString(strings.Join(body, "\n") + "\n")
	} else {
		m.dlg.max = 0
	}
	b.WriteString(foot.String())
	return stDialog.Width(w).Render(b.String())
}

// elicitView shows an MCP server's request for input: its message, the
// fields it asks for and the line the answer is typed on.
func (m *Model) elicitView(c ConfirmRequested) string {
	d := c.Details
	w := m.width - 4
	var p struct {
		Server  string          `json:"server"`
		Message string          `json:"message"`
		URL     string          `json:"url"`
		Schema  json.RawMessage `json:"schema"`
	}
	_ = json.Unmarshal(d.Params, &p)
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Render(fmt.Sprintf("MCP server %q asks for input", p.Server)))
	if len(m.confirm) > 1 {
		b.WriteString(stDim.Render(fmt.Sprintf("  +%d more waiting", len(m.confirm)-1)))
	}
	b.WriteByte('\n')
	if p.Message != "" {
		b.WriteString(wordwrap.String(p.Message, w-2) + "\n")
	}
	if p.URL != "" {
		b.WriteString("open: " + p.URL + "\n")
	}
	fields := schemaFields(p.Schema)
	room := m.height*2/3 - lineCount(b.String()) - 8
	if room < 3 {
		room = 3
	}
	var lines []string
	for _, f := range fields {
		l := "  " + f.name + " (" + f.typ
		if f.required {
			l += ", required"
		}
		l += ")"
		if f.desc != "" {
			l += ": " + f.desc
		}
		lines = append(lines, l)
	}
	if len(lines) > 0 {
		b.WriteString(stDim.Render(clipLines(strings.Join(lines, "\n"), room, w-2)) + "\n")
	}
	switch {
	case p.URL != "":
		b.WriteString(stDim.Render("Enter once done there; Esc declines") + "\n")
	case len(fields) == 1:
		b.WriteString(stDim.Render("type the "+fields[0].name) + "\n")
	case len(fields) > 1:
		b.WriteString(stDim.Render(wordwrap.String(`answer with a JSON object, e.g. {"`+fields[0].name+`": ...}`, w-2)) + "\n")
	}
	b.WriteString(m.answer.View() + "\n")
	b.WriteString(m.keysLine("[enter] send   [esc] decline"))
	return stDialog.Width(w).Render(b.String())
}

// field is one property of an elicitation's requested schema.
type field struct {
	name, typ, desc string
	required        bool
}

// schemaFields lists the properties of a requested schema in the order
// the server wrote them.
func schemaFields(raw json.RawMessage) []field {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		name, _ := t.(string)
		var p struct {
			Type        string `json:"type"`
			Title       string `json:"title"`
			Description string `json:"description"`
		}
		if dec.Decode(&p) != nil {
			return out
		}
		desc := p.Description
		if desc == "" {
			desc = p.Title
		}
		out = append(out, field{name: name, typ: p.Type, desc: desc, required: slices.Contains(s.Required, name)})
	}
	return out
}

// sampleView shows an MCP server's request to use the session's model:
// the system prompt, the messages and the token limit.
func (m *Model) sampleView(c ConfirmRequested) string {
	d := c.Details
	w := m.width - 4
	var p struct {
		Server       string `json:"server"`
		SystemPrompt string `json:"systemPrompt"`
		Messages     []struct {
			Role string `json:"role"`
			Text string `json:"text"`
		} `json:"messages"`
		MaxTokens int `json:"maxTokens"`
	}
	_ = json.Unmarshal(d.Params, &p)
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Render(fmt.Sprintf("Let MCP server %q use the model?", p.Server)))
	b.WriteString(stDim.Render(fmt.Sprintf("  (at most %d tokens)", p.MaxTokens)))
	if len(m.confirm) > 1 {
		b.WriteString(stDim.Render(fmt.Sprintf("  +%d more waiting", len(m.confirm)-1)))
	}
	b.WriteByte('\n')
	var body strings.Builder
	if p.SystemPrompt != "" {
		body.WriteString("system: " + p.SystemPrompt + "\n")
	}
	for _, msg := range p.Messages {
		body.WriteString(msg.Role + ": " + msg.Text + "\n")
	}
	foot := stDim.Render("the reply goes to the server, not into this conversation") + "\n" + m.keysLine("[y] allow   [n] deny")
	lines := hardLines(wordwrap.String(strings.TrimRight(body.String(), "\n"), w-2), w-2, nil)
	b.WriteString(strings.Join(m.scrollBody(lines, m.dialogRoom(b.String(), foot)), "\n") + "\n")
	b.WriteString(foot)
	return stDialog.Width(w).Render(b.String())
}

// diffView colours a unified diff line by line.
func diffView(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = diffStyle(l)(l)
	}
	return strings.Join(lines, "\n")
}

func (m *Model) approvalView() string {
	w := m.width - 4
	head := stBold.Render("Approve before the session starts") + "\n" +
		stDim.Render("These have not been approved (or changed since):") + "\n"
	var body []string
	for i, a := range m.approve {
		changed := ""
		if a.Changed {
			changed = stWarn.Render(" (changed)")
		}
		from := ""
		if a.From != "" {
			from = " from " + a.From
		}
		if i == 0 { // the one asked about, whole
			line := fmt.Sprintf("▸ %s %s%s%s: %s", a.Kind, a.Name, from, changed, a.Detail)
			body = append(body, hardLines(line, w-2, nil)...)
			continue
		}
		line := fmt.Sprintf("  %s %s%s%s: %s", a.Kind, a.Name, from, changed, strings.ReplaceAll(a.Detail, "\n", " "))
		body = append(body, truncate.StringWithTail(line, uint(w-2), "…"))
	}
	foot := m.keysLine("[a] approve   [s] skip")
	body = m.scrollBody(body, m.dialogRoom(head, foot))
	return stDialog.Width(w).Render(head + strings.Join(body, "\n") + "\n" + foot)
}

// statusLine is model · generation · approval mode · sandbox · MCP
// states · context use.
func (m *Model) statusLine() string {
	s := m.status
	parts := []string{}
	if s.Model != "" {
		p := "model " + s.Model
		if s.Provider != "" && s.Provider != "ollama" {
			p += " (" + s.Provider + ")"
		}
		if c := m.orient.check; c != nil && c.Model == s.Model && (c.Err != "" || !c.Installed) {
			p += " ✗"
		}
		parts = append(parts, p)
	}
	if s.Profile != "" || s.Generation > 0 {
		p := "profile"
		if s.Profile != "" {
			p += " " + s.Profile
		}
		switch {
		case s.Generation > 0 && s.Pinned:
			p += fmt.Sprintf(" pinned to gen %d", s.Generation)
		case s.Generation > 0:
			p += fmt.Sprintf(" gen %d", s.Generation)
		}
		parts = append(parts, p)
	}
	if s.Mode != "" {
		parts = append(parts, "mode "+s.Mode)
	}
	if s.Sandbox != "" {
		parts = append(parts, "sandbox "+s.Sandbox)
	}
	if len(s.MCP) > 0 {
		var ms []string
		for _, srv := range s.MCP {
			ms = append(ms, srv.Name+":"+srv.State)
		}
		parts = append(parts, "mcp "+strings.Join(ms, " "))
	}
	if s.Context.Window > 0 {
		parts = append(parts, fmt.Sprintf("ctx %d/%d (%d%%)", s.Context.Used, s.Context.Window, s.Context.Used*100/s.Context.Window))
	} else if s.Context.Used > 0 {
		parts = append(parts, fmt.Sprintf("ctx %d", s.Context.Used))
	}
	if m.orient.pulling != "" {
		parts = append(parts, "pulling "+m.orient.pulling)
	}
	if m.busy {
		parts = append(parts, "working… (Ctrl-C cancels)")
	}
	line := truncate.StringWithTail(" "+strings.Join(parts, " │ "), uint(max(m.width, 10)), "…")
	return stStatus.Width(m.width).Render(line)
}

// View draws the screen.
func (m *Model) View() string {
	if m.quit {
		return ""
	}
	m.drawn = m.dialogID() // arm.go: answers count once it was drawn
	var b strings.Builder
	b.WriteString(m.body())
	b.WriteByte('\n')
	if d := m.dialog(); d != "" {
		b.WriteString(d)
	} else {
		b.WriteString(m.popupView()) // the / or @ menu (menu.go)
		b.WriteString(m.statusLine())
		b.WriteByte('\n')
		b.WriteString(m.inputView())
	}
	return b.String()
}

func sortServers(s []MCPServer) {
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
}
