package policy

import (
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// part is one simple command of a shell command line, the unit that rules
// judge. Values are strings, or unknown when they depend on the run.
type part struct {
	program any    // base name of the first word: "/bin/rm" is "rm"
	args    any    // []any of the other words, or unknown
	command any    // every word joined by one space, or unknown
	writes  []any  // files written by output redirections
	text    string // as written, for people
	via     string // the wrappers it was found inside: "sudo", "bash -c"
	note    string // why something in it is unknown
	broken  bool   // the command line does not parse
}

// maxDepth bounds how far wrappers are looked through (bash -c "sh -c ...").
const maxDepth = 6

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// splitCommand parses a command line into its parts. A line that does not
// parse is one broken part about which nothing is known.
func splitCommand(src string) []part {
	s := splitter{parts: make([]part, 0, 8)}
	s.split(src, "", 0)
	return s.parts
}

type splitter struct{ parts []part }

func (s *splitter) split(src, via string, depth int) {
	if depth > maxDepth {
		s.parts = append(s.parts, unknownPart(src, via, "wrappers nest deeper than the policy looks"))
		return
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	if err != nil {
		u := unknownPart(src, via, "the command does not parse: "+err.Error())
		u.broken = true
		s.parts = append(s.parts, u)
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			s.stmt(src, n, via, depth)
		case *syntax.Lit, *syntax.SglQuoted, *syntax.Comment:
			return false // nothing runs inside
		}
		return true
	})
}

// stmt turns one statement's command into parts. Nested statements (in
// $(...), subshells, blocks, loops, functions) are reached by the walk.
func (s *splitter) stmt(src string, st *syntax.Stmt, via string, depth int) {
	writes := redirWrites(src, st.Redirs)
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) > 0 {
			pt := wordsPart(wordValues(src, c.Args), slice(src, c), via)
			pt.writes = writes
			s.add(pt, depth)
			return
		}
	case *syntax.DeclClause:
		vals := []any{c.Variant.Value}
		for _, a := range c.Args {
			vals = append(vals, assignValue(src, a))
		}
		pt := wordsPart(vals, slice(src, c), via)
		pt.writes = writes
		s.parts = append(s.parts, pt)
		return
	}
	if len(writes) > 0 { // "> file", "{ ...; } > file": the redirection is a part
		s.parts = append(s.parts, part{program: "", args: []any{}, command: "", writes: writes, text: slice(src, st), via: via})
	}
}

// add appends a part and the commands hidden inside it by wrappers.
func (s *splitter) add(pt part, depth int) {
	s.parts = append(s.parts, pt)
	prog, ok := pt.program.(string)
	if !ok {
		return
	}
	w, ok := wrappers[prog]
	if !ok {
		return
	}
	args, _ := pt.args.([]any)
	for _, in := range w(args) {
		via := joinVia(pt.via, in.label(prog))
		switch {
		case depth >= maxDepth:
			s.parts = append(s.parts, unknownPart(pt.text, via, "wrappers nest deeper than the policy looks"))
		case in.note != "":
			s.parts = append(s.parts, unknownPart(pt.text, via, in.note))
		case in.script != "":
			s.split(in.script, via, depth+1)
		case len(in.words) > 0:
			s.add(wordsPart(in.words, display(joinWords(in.words)), via), depth+1)
		}
	}
}

func joinVia(outer, inner string) string {
	if outer == "" {
		return inner
	}
	return outer + " > " + inner
}

// wordsPart builds a part from word values, program first.
func wordsPart(vals []any, text, via string) part {
	pt := part{text: text, via: via, args: vals[1:]}
	pt.program = vals[0]
	if s, ok := vals[0].(string); ok {
		pt.program = path.Base(s)
		if s == "" {
			pt.program = ""
		}
	} else {
		pt.note = "the program is not a literal word"
	}
	pt.command = joinWords(vals)
	if _, ok := pt.command.(unknown); ok && pt.note == "" {
		pt.note = "some words are only known when the command runs"
	}
	return pt
}

// joinWords joins word values with spaces; unknown if any is unknown.
func joinWords(vals []any) any {
	var b strings.Builder
	var text strings.Builder
	known := true
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(' ')
			text.WriteByte(' ')
		}
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			text.WriteString(v)
		case unknown:
			known = false
			text.WriteString(v.text)
		}
	}
	if !known {
		return unknown{text: text.String()}
	}
	return b.String()
}

// display is how a value reads to people.
func display(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case unknown:
		return v.text
	}
	return ""
}

func unknownPart(text, via, note string) part {
	u := unknown{text: text}
	return part{program: u, args: u, command: u, writes: []any{u}, text: text, via: via, note: note}
}

// slice returns the source text of a node.
func slice(src string, n syntax.Node) string {
	a, b := int(n.Pos().Offset()), int(n.End().Offset())
	if a < 0 || b > len(src) || a > b {
		return src
	}
	return src[a:b]
}

// redirWrites lists the targets of output redirections (>, >>, &>, <>, >|).
func redirWrites(src string, rs []*syntax.Redirect) []any {
	var out []any
	for _, r := range rs {
		if r.Word == nil {
			continue
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut, syntax.ClbOut,
			syntax.RdrAllClob, syntax.AppAllClob:
			out = append(out, wordValue(src, r.Word))
		case syntax.DplOut: // >&2 duplicates a descriptor; ">& file" writes file
			if v := wordValue(src, r.Word); !isFD(v) {
				out = append(out, v)
			}
		}
	}
	return out
}

func isFD(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return true
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
