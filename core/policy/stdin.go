package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A shell, or python, node, perl and ruby, run without a program argument
// read their program from standard input: `echo "rm x" | sh`, `sh <<EOF`,
// `bash <<< "..."`. When that input is literal text it is judged like any
// other command line; when it is not, the program cannot be known.

// inlineFlag is how each language that reads its program from its input
// takes a program as an argument; a program it reads becomes such an
// argument, so one rule sees both forms.
var inlineFlag = map[string]string{"python": "-c", "node": "-e", "perl": "-e", "ruby": "-e"}

// readsInput judges what a command reads as a program from its input.
func (s *splitter) readsInput(in inner, pt part, prog, via string, depth int, at source) {
	if s.budget <= 0 {
		s.parts = append(s.parts, unknownPart(pt.text, via, "the command line hides more commands than the policy looks through"))
		return
	}
	f := at.feed()
	what := "a program"
	if in.stdin == "sh" {
		what = "commands"
	}
	switch {
	case !f.known:
		s.parts = append(s.parts, unknownPart(pt.text, via, display(pt.program)+" reads "+what+" from its input, which is "+f.what))
	case f.text == "":
	case in.stdin == "sh":
		s.split(f.text, via, depth+1, restInput)
	default:
		words := []any{prog, inlineFlag[in.stdin], f.text}
		s.parts = append(s.parts, wordsPart(words, prog+" "+inlineFlag[in.stdin]+" "+quoteWord(f.text), via))
	}
}

// quoteWord quotes a word for the shell if it needs it.
func quoteWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// feed is what a command reads on its standard input.
type feed struct {
	text  string
	known bool
	what  string // where unknown input comes from, for people
}

func unknownFeed(what string) feed { return feed{what: what} }

// source is where a command's input comes from: a statement of a script
// being walked and the nodes above it (sc.stack[:n]), resolved only when a
// command that reads a program from its input needs it. fixed, when set,
// is the input; the zero source is the tool's own input.
type source struct {
	sc    *script
	st    *syntax.Stmt
	n     int
	fixed *feed
}

var (
	laterInput = &source{fixed: &feed{what: "given when it runs later"}}
	restInput  = &source{fixed: &feed{what: "the rest of the input it was read from"}}
)

func (at source) feed() feed {
	switch {
	case at.fixed != nil:
		return *at.fixed
	case at.sc == nil:
		return unknownFeed("the tool's own input")
	}
	return at.sc.stdinOf(at.st, at.sc.stack[:at.n])
}

// stdinOf finds the input of st, whose ancestors are anc (outermost
// first): its own redirections, then those of enclosing compound commands,
// then the left side of a pipe it is on the right of, then the script's
// own input.
func (sc *script) stdinOf(st *syntax.Stmt, anc []syntax.Node) feed {
	if f, ok := sc.redirIn(st); ok {
		return f
	}
	var child syntax.Node = st
	for i := len(anc) - 1; i >= 0; i-- {
		switch n := anc[i].(type) {
		case *syntax.Stmt:
			if n.Coprocess {
				return unknownFeed("what is written to the coprocess")
			}
			// { sh; } < file; a simple command's words expand before its
			// redirections apply, and redirection words are not fed either
			if _, simple := n.Cmd.(*syntax.CallExpr); !simple && child == syntax.Node(n.Cmd) {
				if f, ok := sc.redirIn(n); ok {
					return f
				}
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && child == syntax.Node(n.Y) {
				return sc.outputOf(n.X, anc[:i+1])
			}
		case *syntax.CoprocClause:
			return unknownFeed("what is written to the coprocess")
		case *syntax.ProcSubst:
			if n.Op == syntax.CmdOut {
				return unknownFeed("what is written to " + slice(sc.src, n))
			}
		}
		child = anc[i]
	}
	if sc.execRedirectsInput() {
		return unknownFeed("redirected by exec")
	}
	if sc.in == nil {
		return unknownFeed("the tool's own input")
	}
	return sc.in.feed()
}

// redirIn is the input a statement's own redirections give it; the last
// one wins.
func (sc *script) redirIn(st *syntax.Stmt) (feed, bool) {
	var f feed
	found := false
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut:
			f = fileFeed(wordValue(sc.src, r.Word))
		case syntax.DplIn:
			f = unknownFeed("descriptor " + slice(sc.src, r.Word))
			if v, _ := wordValue(sc.src, r.Word).(string); v == "-" {
				f = feed{known: true} // <&- closes it
			}
		case syntax.WordHdoc:
			f = unknownFeed("a here-string with expansions")
			if v, ok := wordValue(sc.src, r.Word).(string); ok {
				f = feed{text: v + "\n", known: true}
			}
		case syntax.Hdoc, syntax.DashHdoc:
			f = heredoc(r)
		default:
			if r.N == nil {
				continue
			}
			f = unknownFeed(slice(sc.src, r)) // 0>file and the like
		}
		found = true
	}
	return f, found
}

func fileFeed(v any) feed {
	switch v {
	case "/dev/null":
		return feed{known: true}
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return unknownFeed("the tool's own input")
	}
	return unknownFeed("the file " + display(v))
}

// heredoc is the text of a here-document: as written when its delimiter
// is quoted, else unknown if it expands anything, with backslashes removed
// before $ ` \ and newline. <<- strips leading tabs.
func heredoc(r *syntax.Redirect) feed {
	quoted := false
	for _, p := range r.Word.Parts {
		if l, ok := p.(*syntax.Lit); !ok || strings.ContainsRune(l.Value, '\\') {
			quoted = true
		}
	}
	var b strings.Builder
	if r.Hdoc != nil {
		for _, p := range r.Hdoc.Parts {
			l, ok := p.(*syntax.Lit)
			if !ok {
				return unknownFeed("a here-document with expansions")
			}
			b.WriteString(l.Value)
		}
	}
	text := b.String()
	if r.Op == syntax.DashHdoc {
		lines := strings.SplitAfter(text, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, "\t")
		}
		text = strings.Join(lines, "")
	}
	if !quoted {
		text = unescapeHeredoc(text)
	}
	return feed{text: text, known: true}
}

func unescapeHeredoc(s string) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// execRedirectsInput reports whether an `exec` in the script redirects
// its input for the commands after it (`exec < file`).
func (sc *script) execRedirectsInput() bool {
	found := false
	syntax.Walk(sc.file, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok || found {
			return !found
		}
		if c, ok := st.Cmd.(*syntax.CallExpr); ok && len(c.Args) == 1 && wordValue(sc.src, c.Args[0]) == "exec" {
			_, found = sc.redirIn(st)
		}
		return true
	})
	return found
}

// outputOf is what a statement writes to a pipe: the words of echo and
// printf, the input of a bare cat, the output of the last command of a
// pipe. Anything else is unknown.
func (sc *script) outputOf(st *syntax.Stmt, anc []syntax.Node) feed {
	switch c := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			return sc.outputOf(c.Y, append(anc[:len(anc):len(anc)], st, c))
		}
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			break
		}
		vals := wordValues(sc.src, c.Args)
		prog, _ := vals[0].(string)
		var f feed
		switch path.Base(prog) {
		case "echo":
			f.text, f.known = echoText(vals[1:])
		case "printf":
			f.text, f.known = printfText(vals[1:])
		case "cat":
			if catsInput(vals[1:]) {
				return sc.stdinOf(st, anc)
			}
		}
		if f.known {
			return f
		}
	}
	return unknownFeed("the output of " + slice(sc.src, st))
}

// catsInput reports whether cat's words only copy its input.
func catsInput(args []any) bool {
	for _, a := range args {
		if a != "-" && a != "--" {
			return false
		}
	}
	return true
}

// echoText is what echo prints, if no backslash could be interpreted
// (echo -e, xpg_echo, dash).
func echoText(args []any) (string, bool) {
	nl := "\n"
	i := 0
	for ; i < len(args); i++ {
		a, ok := args[i].(string)
		if !ok || len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
			break
		}
		if strings.ContainsRune(a, 'n') {
			nl = ""
		}
	}
	words := make([]string, 0, len(args)-i)
	for _, a := range args[i:] {
		s, ok := a.(string)
		if !ok || strings.ContainsRune(s, '\\') {
			return "", false
		}
		words = append(words, s)
	}
	return strings.Join(words, " ") + nl, true
}

// printfText is what printf prints for the subset of formats that are
// plain: %s, %% and the common backslash escapes. The format is reused
// while arguments remain, as printf does.
func printfText(args []any) (string, bool) {
	strs := make([]string, 0, len(args))
	for _, a := range args {
		s, ok := a.(string)
		if !ok {
			return "", false
		}
		strs = append(strs, s)
	}
	if len(strs) > 0 && strs[0] == "--" {
		strs = strs[1:]
	}
	if len(strs) == 0 || strings.HasPrefix(strs[0], "-") {
		return "", false // -v assigns; no format is an error
	}
	format, rest := strs[0], strs[1:]
	var b strings.Builder
	for {
		used, ok := printfOnce(&b, format, rest)
		if !ok || b.Len() > maxHidden {
			return "", false
		}
		rest = rest[min(used, len(rest)):]
		if used == 0 || len(rest) == 0 {
			return b.String(), true
		}
	}
}

var printfEscapes = map[byte]byte{'n': '\n', 't': '\t', '\\': '\\', '"': '"', '\'': '\'', 'a': '\a', 'b': '\b', 'f': '\f', 'r': '\r', 'v': '\v'}

func printfOnce(b *strings.Builder, format string, args []string) (used int, ok bool) {
	for i := 0; i < len(format); i++ {
		c := format[i]
		if (c != '\\' && c != '%') || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch next := format[i]; {
		case c == '\\' && printfEscapes[next] != 0:
			b.WriteByte(printfEscapes[next])
		case c == '%' && next == '%':
			b.WriteByte('%')
		case c == '%' && next == 's':
			if used < len(args) {
				b.WriteString(args[used])
			}
			used++
		default:
			return 0, false // widths, numbers, %b, %q, octal and hex escapes
		}
	}
	return used, true
}
