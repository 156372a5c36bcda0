package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/reflow/truncate"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/internal/secrets"
)

// header is what a tool card says a call does, in words: Verb while it is
// done ("Run"), Doing while it runs ("Running"), then the object
// ("`go test ./...`").
type header struct{ Verb, Doing, Object string }

func (h header) done() string    { return joinWords(h.Verb, h.Object) }
func (h header) running() string { return joinWords(h.Doing, h.Object) }

func joinWords(a, b string) string {
	if b == "" {
		return a
	}
	return a + " " + b
}

// toolHeader is the one-line header of a call to the tool the model named
// name (policyName is the name the policy judged it by, "server:tool" for
// an MCP tool; "" when not known yet). Every value shown is one line with
// no control characters.
func toolHeader(name, policyName string, raw json.RawMessage) header {
	var a map[string]any
	_ = json.Unmarshal(raw, &a)
	str := func(k string) string { s, _ := a[k].(string); return clean(s) }
	n := policyName
	if n == "" {
		n = name
	}
	if i := strings.LastIndexByte(n, ':'); i > 0 && i < len(n)-1 {
		srv := clean(n[:i]) + " · " + clean(n[i+1:])
		return header{srv, srv, kvSummary(a)}
	}
	h := func(verb, doing string, obj ...string) header {
		return header{verb, doing, strings.Join(nonEmpty(obj), " ")}
	}
	switch n {
	case "write_file":
		return h("Write", "Writing", str("path"))
	case "edit_file":
		edits, _ := a["edits"].([]any)
		return h("Edit", "Editing", str("path"), "("+plural(len(edits), "edit")+")")
	case "read_file":
		o := str("path")
		start, _ := a["startLine"].(float64)
		end, _ := a["endLine"].(float64)
		switch {
		case start > 0 && end > 0:
			o += fmt.Sprintf(" lines %d-%d", int(start), int(end))
		case start > 0:
			o += fmt.Sprintf(" from line %d", int(start))
		case end > 0:
			o += fmt.Sprintf(" to line %d", int(end))
		}
		return h("Read", "Reading", o)
	case "read_many_files":
		ps, _ := a["paths"].([]any)
		var names []string
		for _, p := range ps {
			if s, ok := p.(string); ok {
				names = append(names, clean(s))
			}
		}
		return h("Read", "Reading", strings.Join(names, ", "))
	case "shell":
		cmd := "`" + str("command") + "`"
		if bg, _ := a["background"].(bool); bg {
			return h("Start", "Starting", cmd, "in the background")
		}
		return h("Run", "Running", cmd)
	case "shell_output":
		return h("Check", "Checking", str("id"))
	case "shell_kill":
		return h("Stop", "Stopping", str("id"))
	case "grep":
		o := quote(str("pattern"))
		if p := str("path"); p != "" {
			o += " in " + p
		}
		if fp := str("filePattern"); fp != "" {
			o += " (" + fp + ")"
		}
		return h("Search", "Searching", o)
	case "glob":
		o := str("pattern")
		if p := str("path"); p != "" {
			o += " in " + p
		}
		return h("Glob", "Globbing", o)
	case "ls":
		p := str("path")
		if p == "" {
			p = "."
		}
		return h("List", "Listing", p)
	case "web_fetch":
		return h("Fetch", "Fetching", clean(secrets.RedactURLs(str("url"))))
	case "web_search":
		return h("Search the web for", "Searching the web for", quote(str("query")))
	case "memory":
		switch str("action") {
		case "set":
			return h("Remember", "Remembering", str("key"))
		case "get":
			return h("Recall", "Recalling", str("key"))
		case "delete":
			return h("Forget", "Forgetting", str("key"))
		}
		return h("List memories", "Listing memories")
	case "write_todos":
		if ts, ok := a["todos"].([]any); ok {
			return h("Todos", "Updating todos", fmt.Sprintf("(%d)", len(ts)))
		}
		switch str("action") {
		case "add":
			return h("Add todo", "Adding todo", quote(str("text")))
		case "complete":
			return h("Complete todo", "Completing todo", str("id"))
		case "remove":
			return h("Remove todo", "Removing todo", str("id"))
		}
		return h("List todos", "Listing todos")
	case skills.ToolName:
		return h("Load skill", "Loading skill", str("name"))
	case agent.TaskTool:
		return h("Delegate to", "Delegating to", str("subagent_type")+":", str("description"))
	}
	n = clean(n)
	return header{n, n, kvSummary(a)}
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" && s != "()" {
			out = append(out, s)
		}
	}
	return out
}

func quote(s string) string {
	if s == "" {
		return ""
	}
	return "'" + s + "'"
}

// kvSummary is key=value pairs in key order, each value one short line.
func kvSummary(a map[string]any) string {
	var parts []string
	for _, k := range sortedKeys(a) {
		var s string
		switch v := a[k].(type) {
		case string:
			s = clean(secrets.RedactURLs(v))
			if strings.ContainsAny(s, " ,=") || s == "" {
				s = fmt.Sprintf("%q", s)
			}
		default:
			j, _ := json.Marshal(v)
			s = string(j)
		}
		parts = append(parts, clean(k)+"="+truncate.StringWithTail(s, 40, "…"))
	}
	return strings.Join(parts, " ")
}

// clean is s as one line a terminal shows as written: the first line
// (with "…" when more follow), escape sequences removed, tabs as spaces and
// other control characters as "�". A model's arguments never move the
// cursor or recolour the screen.
func clean(s string) string {
	more := false
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		more = strings.TrimSpace(s[i:]) != ""
		s = s[:i]
	}
	s = strings.Map(safeRune, ansi.Strip(s))
	if more {
		s += "…"
	}
	return s
}

func safeRune(r rune) rune {
	switch {
	case r == '\t':
		return ' '
	case unicode.IsControl(r), r == '\u2028', r == '\u2029', unicode.Is(unicode.Bidi_Control, r):
		return '�'
	}
	return r
}

// cleanBlock is tool output made safe to draw: escape sequences removed,
// a line rewritten with \r shown as its last state, other control
// characters as "�".
func cleanBlock(s string) string {
	s = ansi.Strip(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:]
		}
		lines[i] = strings.Map(safeRune, l)
	}
	return strings.Join(lines, "\n")
}

// Collapsed cards show the first foldHead and last foldTail lines of a
// longer output (a diff: diffHead and foldTail) around a line saying what
// is hidden and how to see it.
const (
	foldHead = 4
	foldTail = 3
	diffHead = 8
	// tailLines of a running call's output are shown, the latest ones.
	tailLines = 6
)

// expandKey is the key that expands the last folded card.
const expandKey = "ctrl+o"

// fold returns lines, or with expanded false and more than head+tail+1 of
// them, the first head and last tail around a "… N more lines" line; hidden
// says whether lines were left out.
func fold(lines []string, head, tail int, expanded bool) (out []string, hidden bool) {
	if expanded || len(lines) <= head+tail+1 {
		return lines, false
	}
	n := len(lines) - head - tail
	out = append(out, lines[:head]...)
	out = append(out, foldLine(n))
	return append(out, lines[len(lines)-tail:]...), true
}

func foldLine(n int) string {
	return fmt.Sprintf("… %s (%s to expand)", plural(n, "more line"), expandKey)
}

// splitDiff separates a unified diff at the end of a tool's display (edit
// shows "Applied ... \n--- a/x\n+++ b/x ...") from the text before it.
func splitDiff(s string) (text, diff string) {
	lines := strings.Split(s, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.HasPrefix(lines[i], "--- ") && strings.HasPrefix(lines[i+1], "+++ ") {
			return strings.Join(lines[:i], "\n"), strings.Join(lines[i:], "\n")
		}
	}
	return s, ""
}

// cardBody is the lines under a card's header: the output (the latest
// lines while it runs), the error, and the diff of a write that was done.
// A display that only repeats the header (read_file's "Read x") is left
// out. It records on c whether lines were folded away.
func (m *Model) cardBody(c *card, w int, head string) string {
	c.folds = false
	cut := func(ls []string) []string {
		if c.expanded {
			return ls
		}
		for i, l := range ls {
			ls[i] = truncate.StringWithTail(l, uint(max(w, 10)), "…")
		}
		return ls
	}
	var parts []string
	text, diff := splitDiff(cleanBlock(c.display))
	if c.status == ToolRunning && text == "" {
		out := strings.TrimRight(cleanBlock(c.output.String()), "\n")
		if out != "" {
			ls := strings.Split(out, "\n")
			if !c.expanded && len(ls) > tailLines {
				c.folds = true
				ls = append([]string{foldLine(len(ls) - tailLines)}, ls[len(ls)-tailLines:]...)
			}
			parts = append(parts, stDim.Render(strings.Join(cut(ls), "\n")))
		}
	}
	if strings.TrimSuffix(strings.TrimSpace(text), ".") == head {
		text = ""
	}
	errText := cleanBlock(c.err)
	if errText != "" && strings.TrimSpace(text) == strings.TrimSpace(errText) {
		text = ""
	}
	if text = strings.Trim(text, "\n"); text != "" {
		ls, hid := fold(strings.Split(text, "\n"), foldHead, foldTail, c.expanded)
		c.folds = c.folds || hid
		parts = append(parts, stDim.Render(strings.Join(cut(ls), "\n")))
	}
	if errText = strings.TrimSpace(errText); errText != "" {
		ls, hid := fold(strings.Split(errText, "\n"), foldHead, foldTail, c.expanded)
		c.folds = c.folds || hid
		parts = append(parts, stError.Render(strings.Join(cut(ls), "\n")))
	}
	if diff == "" && c.status == ToolOK {
		diff = cleanBlock(c.diff)
	}
	if diff = strings.TrimRight(diff, "\n"); diff != "" && c.status == ToolOK {
		ls, hid := fold(strings.Split(diff, "\n"), diffHead, foldTail, c.expanded)
		c.folds = c.folds || hid
		parts = append(parts, diffView(strings.Join(cut(ls), "\n")))
	}
	if c.expanded {
		parts = append(parts, stDim.Render("("+expandKey+" to collapse)"))
	}
	return strings.Join(parts, "\n")
}

// toggleExpand expands the last card with folded lines, or collapses it
// when it is expanded; false when no card has anything to show.
func (m *Model) toggleExpand() bool {
	for i := len(m.entries) - 1; i >= 0; i-- {
		c := m.entries[i].tool
		if c == nil {
			continue
		}
		m.entryLines(m.entries[i]) // folds is known once drawn
		if c.folds || c.expanded {
			c.expanded = !c.expanded
			m.entries[i].cache = nil
			return true
		}
	}
	return false
}

// elapsed is "3.2s", "1m05s".
func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
}
