package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

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

// maxCardLines bounds the output shown in a tool card.
const maxCardLines = 8

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
	n := 0
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
	var chunks [][]string
	have := 0
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

func statusIcon(s ToolStatus) string {
	switch s {
	case ToolOK:
		return stOK.Render("✓ ok")
	case ToolError:
		return stError.Render("✗ error")
	case ToolDenied:
		return stWarn.Render("⊘ denied")
	case ToolAsking:
		return stWarn.Render("? waiting for you")
	}
	return stWarn.Render("… running")
}

func (m *Model) cardView(c *card) string {
	w := m.width - 4
	var b strings.Builder
	head := fmt.Sprintf("⚒ %s(%s)", c.name, argsSummary(c.args, w-len(c.name)-24))
	b.WriteString(head + "  " + statusIcon(c.status))
	if c.sandbox != "" {
		b.WriteString("\n" + stDim.Render("sandbox: "+c.sandbox))
	}
	if c.status == ToolRunning && (c.total > 0 || c.message != "") {
		b.WriteByte('\n')
		if c.total > 0 {
			b.WriteString(progressBar(c.done/c.total, 30) + fmt.Sprintf(" %.0f/%.0f", c.done, c.total))
		}
		if c.message != "" {
			b.WriteString(" " + c.message)
		}
	}
	body := c.display
	if body == "" && c.status == ToolRunning {
		body = c.output.String()
	}
	if c.err != "" && strings.TrimSpace(body) == strings.TrimSpace(c.err) {
		body = ""
	}
	if c.err != "" {
		body = strings.TrimSpace(body + "\n" + stError.Render(c.err))
	}
	if body = strings.TrimRight(body, "\n"); body != "" {
		b.WriteByte('\n')
		b.WriteString(stDim.Render(clipLines(body, maxCardLines, w-4)))
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

// argsSummary is the arguments on one line, cut to n columns.
func argsSummary(args json.RawMessage, n int) string {
	if len(args) == 0 {
		return ""
	}
	var v map[string]any
	if json.Unmarshal(args, &v) != nil {
		return truncate.StringWithTail(string(args), uint(max(n, 10)), "…")
	}
	var parts []string
	for _, k := range sortedKeys(v) {
		val := v[k]
		var s string
		if str, ok := val.(string); ok {
			s = fmt.Sprintf("%s=%q", k, firstLine(str))
		} else {
			j, _ := json.Marshal(val)
			s = k + "=" + string(j)
		}
		parts = append(parts, s)
	}
	return truncate.StringWithTail(strings.Join(parts, ", "), uint(max(n, 10)), "…")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + "…"
	}
	return s
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
	b.WriteString(lipgloss.NewStyle().Bold(true).Render(title))
	if d.Risk != "" {
		b.WriteString(stDim.Render(fmt.Sprintf("  (%s, risk %s)", d.Kind, d.Risk)))
	}
	if len(m.confirm) > 1 {
		b.WriteString(stDim.Render(fmt.Sprintf("  +%d more waiting", len(m.confirm)-1)))
	}
	b.WriteByte('\n')
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
	if d.Command != "" {
		b.WriteString("$ " + d.Command + "\n")
	}
	// Room for the rest: the dialog takes at most about two thirds of the screen.
	room := m.height*2/3 - lineCount(b.String()) - 6
	if room < 4 {
		room = 4
	}
	if d.Diff != "" {
		b.WriteString(diffView(clipLines(strings.TrimRight(d.Diff, "\n"), room, w-2)) + "\n")
	} else if len(d.Params) > 0 && d.Command == "" {
		var out bytes.Buffer
		if json.Indent(&out, d.Params, "", "  ") != nil {
			out.Reset()
			out.Write(d.Params)
		}
		b.WriteString(clipLines(out.String(), room, w-2) + "\n")
	}
	if d.Always != "" {
		b.WriteString(stDim.Render(wordwrap.String("[a] saves: "+d.Always, w-2)) + "\n")
	}
	keys := "[y] allow once   [a] allow always   [n] deny"
	if d.AlwaysNarrow != "" {
		b.WriteString(stDim.Render(wordwrap.String("[s] saves only: "+d.AlwaysNarrow, w-2)) + "\n")
		keys = "[y] allow once   [a] allow always   [s] always, this sub-command only   [n] deny"
	}
	if d.Trust != "" {
		keys = "[y] allow this one write   [n] deny   (no \"always\" for a file that decides what runs)"
	}
	b.WriteString(m.keysLine(keys))
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
	room := m.height*2/3 - lineCount(b.String()) - 6
	if room < 4 {
		room = 4
	}
	b.WriteString(clipLines(wordwrap.String(strings.TrimRight(body.String(), "\n"), w-2), room, w-2) + "\n")
	b.WriteString(stDim.Render("the reply goes to the server, not into this conversation") + "\n")
	b.WriteString(m.keysLine("[y] allow   [n] deny"))
	return stDialog.Width(w).Render(b.String())
}

func diffView(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			lines[i] = lipgloss.NewStyle().Bold(true).Render(l)
		case strings.HasPrefix(l, "+"):
			lines[i] = stDiffAdd.Render(l)
		case strings.HasPrefix(l, "-"):
			lines[i] = stDiffDel.Render(l)
		case strings.HasPrefix(l, "@@"):
			lines[i] = stDiffHunk.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}

func (m *Model) approvalView() string {
	w := m.width - 4
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Render("Approve before the session starts") + "\n")
	b.WriteString(stDim.Render("These have not been approved (or changed since):") + "\n")
	for i, a := range m.approve {
		mark := "  "
		if i == 0 {
			mark = "▸ "
		}
		changed := ""
		if a.Changed {
			changed = stWarn.Render(" (changed)")
		}
		from := ""
		if a.From != "" {
			from = " from " + a.From
		}
		line := fmt.Sprintf("%s%s %s%s%s: %s", mark, a.Kind, a.Name, from, changed, a.Detail)
		b.WriteString(truncate.StringWithTail(line, uint(w-2), "…") + "\n")
	}
	b.WriteString(m.keysLine("[a] approve   [s] skip"))
	return stDialog.Width(w).Render(b.String())
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
	var b strings.Builder
	b.WriteString(m.body())
	b.WriteByte('\n')
	if d := m.dialog(); d != "" {
		b.WriteString(d)
	} else {
		b.WriteString(m.statusLine())
		b.WriteByte('\n')
		b.WriteString(m.input.View())
	}
	return b.String()
}

func sortServers(s []MCPServer) {
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
}
