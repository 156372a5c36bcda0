package tui

import (
	"context"
	"strings"
	"unicode"

	"github.com/ollm/ollm/tools"
)

// "@" mentions: a word starting with "@" at the end of the input opens a
// menu of the workspace's files (Options.Workspace; the walk honours
// .gitignore, skips hidden names and never follows a symlink), narrowed
// by what follows the "@". Tab or Enter puts "@path " in the input (a
// directory: "@dir/", and the menu goes on inside it). The file is
// attached when the prompt is sent: the runtime's Attach
// (core/runtime/attach_files.go) reads it, refusing files outside the
// workspace and those the policy keeps from read_file.

// maxMentionFiles is the most files the "@" menu lists.
const maxMentionFiles = 10000

// mentionAtEnd reports the "@" word the cursor ends, and what follows the "@".
func (m *Model) mentionAtEnd(v string) (string, bool) {
	if !m.cursorAtEnd(v) {
		return "", false
	}
	i := strings.LastIndexFunc(v, unicode.IsSpace)
	word := v[i+1:]
	if !strings.HasPrefix(word, "@") || strings.ContainsAny(word[1:], "@:") {
		return "", false
	}
	return word[1:], true
}

// cursorAtEnd reports whether the input's cursor is after its last rune.
func (m *Model) cursorAtEnd(v string) bool {
	if m.input.Line() != m.input.LineCount()-1 {
		return false
	}
	last := v[strings.LastIndexByte(v, '\n')+1:]
	li := m.input.LineInfo()
	return li.StartColumn+li.ColumnOffset >= len([]rune(last))
}

// listFiles lists the workspace's files for the menu.
func (m *Model) listFiles() {
	p := &m.cmds.pop
	p.files, p.more = nil, false
	if m.opt.Workspace == "" {
		return
	}
	files, more, err := tools.WorkspaceFiles(context.Background(), m.opt.Workspace, maxMentionFiles)
	if err != nil {
		m.info("error", "listing the workspace's files for @: "+err.Error())
	}
	for _, f := range files {
		// "@a b" would mention "a"; a name with control characters cannot
		// be typed and is not drawn.
		if !strings.ContainsFunc(f, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
			p.files = append(p.files, f)
		}
	}
	p.more = more
}

// fileItems are the files whose path starts with q, then those whose
// name does, then those holding it anywhere.
func (m *Model) fileItems(q string) []MenuItem {
	q = strings.ToLower(q)
	var first, second, rest []MenuItem
	for _, f := range m.cmds.pop.files {
		lf := strings.ToLower(f)
		if lf == q { // the directory completed: its files
			continue
		}
		base := lf[strings.LastIndexByte(strings.TrimSuffix(lf, "/"), '/')+1:]
		switch {
		case strings.HasPrefix(lf, q):
			first = append(first, MenuItem{Name: f})
		case strings.HasPrefix(base, q):
			second = append(second, MenuItem{Name: f})
		case strings.Contains(lf, q):
			rest = append(rest, MenuItem{Name: f})
		}
	}
	return append(append(first, second...), rest...)
}

// completeFile replaces the "@" word at the end of the input with path.
func (m *Model) completeFile(path string) {
	v := m.input.Value()
	i := strings.LastIndexFunc(v, unicode.IsSpace)
	s := v[:i+1] + "@" + path
	if !strings.HasSuffix(path, "/") {
		s += " "
	}
	m.setInput(s)
}
