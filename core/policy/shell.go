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
	s := splitter{parts: make([]part, 0, 8), budget: maxHidden}
	s.split(src, "", 0, nil)
	return s.parts
}

type splitter struct {
	parts  []part
	budget int // bytes of hidden command lines still to parse
}

// maxHidden bounds the bytes of command lines found inside others (bash
// -c, input fed to a shell, parallel's jobs) that one decision parses:
// parallel's combinations and printf's reused format multiply text at each
// level, and a decision must stay fast whatever the model writes.
const maxHidden = 256 << 10

// script is one parsed command line while it is walked: the nodes above
// the current one, and where its standard input comes from (nil: the
// tool's own input, which the policy cannot see). Scripts are pooled with
// their walk function, so a split allocates neither.
type script struct {
	s     *splitter
	src   string
	via   string
	depth int
	file  *syntax.File
	stack []syntax.Node
	in    *source
	visit func(syntax.Node) bool // sc.walk, bound once
	buf   [16]syntax.Node        // the stack's first backing array
}

var scripts sync.Pool // of *script; no New, which would make an initialization cycle

func (s *splitter) split(src, via string, depth int, in *source) {
	if depth > maxDepth {
		s.parts = append(s.parts, unknownPart(src, via, "wrappers nest deeper than the policy looks"))
		return
	}
	if depth > 0 {
		if s.budget -= len(src); s.budget < 0 {
			s.parts = append(s.parts, unknownPart(src, via, "the command line hides more commands than the policy looks through"))
			return
		}
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
	sc, _ := scripts.Get().(*script)
	if sc == nil {
		sc = &script{}
		sc.visit = sc.walk
	}
	sc.s, sc.src, sc.via, sc.depth, sc.file, sc.in, sc.stack = s, src, via, depth, f, in, sc.buf[:0]
	syntax.Walk(f, sc.visit)
	clear(sc.buf[:])
	sc.s, sc.file, sc.in, sc.stack = nil, nil, nil, nil
	scripts.Put(sc)
}

func (sc *script) walk(n syntax.Node) bool {
	switch n := n.(type) {
	case nil: // the children of the top of the stack are done
		sc.stack = sc.stack[:len(sc.stack)-1]
		return true
	case *syntax.Stmt:
		sc.s.stmt(sc, n, sc.via, sc.depth)
	case *syntax.Lit, *syntax.SglQuoted, *syntax.Comment:
		return false // nothing runs inside
	}
	sc.stack = append(sc.stack, n)
	return true
}

// stmt turns one statement's command into parts. Nested statements (in
// $(...), subshells, blocks, loops, functions) are reached by the walk.
func (s *splitter) stmt(sc *script, st *syntax.Stmt, via string, depth int) {
	at := source{sc: sc, st: st, n: len(sc.stack)}
	writes := redirWrites(sc.src, st.Redirs)
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 {
			s.assigns(sc, c.Assigns, slice(sc.src, c), via, depth)
		}
		if len(c.Args) > 0 {
			pt := wordsPart(wordValues(sc.src, c.Args), slice(sc.src, c), via)
			pt.writes = writes
			s.add(pt, depth, at)
			return
		}
	case *syntax.DeclClause:
		vals := []any{c.Variant.Value}
		for _, a := range c.Args {
			vals = append(vals, assignValue(sc.src, a))
		}
		pt := wordsPart(vals, slice(sc.src, c), via)
		pt.writes = writes
		s.add(pt, depth, at)
		return
	}
	if len(writes) > 0 { // "> file", "{ ...; } > file": the redirection is a part
		s.parts = append(s.parts, part{program: "", args: []any{}, command: "", writes: writes, text: slice(sc.src, st), via: via})
	}
}

// assigns judges the variables a command sets before its words
// (`PAGER=x git log`, `PROMPT_COMMAND=...`): see vars.go.
func (s *splitter) assigns(sc *script, as []*syntax.Assign, text, via string, depth int) {
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		var v any = unknown{text: slice(sc.src, a)}
		switch {
		case a.Append || a.Array != nil || a.Index != nil:
		case a.Value == nil:
			v = ""
		default:
			v = wordValue(sc.src, a.Value)
		}
		if ins := varInners(a.Name.Value, v); ins != nil {
			s.run(ins, part{text: text, via: via}, "", depth, source{})
		}
	}
}

// add appends a part and the commands hidden inside it by wrappers. at is
// the statement the part comes from, for what it reads on its input.
func (s *splitter) add(pt part, depth int, at source) {
	s.parts = append(s.parts, pt)
	prog, ok := pt.program.(string)
	if !ok {
		return
	}
	w, ok := wrappers[prog]
	if !ok {
		if w = versioned(prog); w == nil {
			return
		}
	}
	args, _ := pt.args.([]any)
	s.run(w(args), pt, prog, depth, at)
}

// run turns what a wrapper runs into parts.
func (s *splitter) run(ins []inner, pt part, prog string, depth int, at source) {
	for _, in := range ins {
		via := joinVia(pt.via, in.label(prog))
		switch {
		case depth >= maxDepth:
			s.parts = append(s.parts, unknownPart(pt.text, via, "wrappers nest deeper than the policy looks"))
		case in.note != "":
			s.parts = append(s.parts, unknownPart(pt.text, via, in.note))
		case in.stdin != "":
			s.readsInput(in, pt, prog, via, depth, at)
		case in.script != "" && in.apart:
			s.split(in.script, via, depth+1, laterInput)
		case in.script != "":
			from := at // copied here so that only this path allocates
			s.split(in.script, via, depth+1, &from)
		case len(in.words) > 0:
			s.add(wordsPart(in.words, display(joinWords(in.words)), via), depth+1, at)
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
