package policy

import (
	"slices"
	"strings"
)

// inner is a command a wrapper runs.
type inner struct {
	words  []any  // the wrapped command, program first
	script string // a command line the wrapper hands to a shell
	note   string // set when the wrapped command cannot be known
	how    string // how it is wrapped: "-c", "-exec"
}

func (in inner) label(prog string) string {
	if in.how == "" {
		return prog
	}
	return prog + " " + in.how
}

// wrappers maps programs that run another command to a function that
// finds it in their arguments.
var wrappers = map[string]func(args []any) []inner{
	"bash": shellWrap, "sh": shellWrap, "zsh": shellWrap, "dash": shellWrap,
	"ksh": shellWrap, "mksh": shellWrap, "ash": shellWrap, "fish": shellWrap,
	"eval":    evalWrap,
	"env":     envWrap,
	"find":    findWrap,
	"xargs":   xargsWrap,
	"command": commandWrap,
	"watch":   watchWrap,
	"su":      suWrap,
	"timeout": operandWrap("sk", "--signal", "--kill-after"),
	"chroot":  operandWrap("", "--userspec", "--groups"),
	"nohup":   optsWrap(""),
	"builtin": optsWrap(""),
	"setsid":  optsWrap(""),
	"exec":    optsWrap("a"),
	"nice":    optsWrap("n", "--adjustment"),
	"time":    optsWrap("fo", "--format", "--output"),
	"stdbuf":  optsWrap("ioe", "--input", "--output", "--error"),
	"ionice":  optsWrap("cnpPu", "--class", "--classdata", "--pid", "--pgid", "--uid"),
	"doas":    optsWrap("uC"),
	"sudo": optsWrap("ugpCDrtTU", "--user", "--group", "--prompt", "--close-from",
		"--chdir", "--role", "--type", "--command-timeout", "--other-user", "--host"),
}

var notLiteral = []inner{{note: "a word of the wrapped command or of its options is not a literal word"}}

// skipOpts returns the index of the first operand after the options.
// valueOpts are short options that take a value; longValue are long
// options that take the next word when written without "=". ok is false
// when an option word is not literal.
func skipOpts(args []any, valueOpts string, longValue ...string) (int, bool) {
	i := 0
	for i < len(args) {
		a, ok := args[i].(string)
		if !ok {
			return i, false
		}
		if a == "--" {
			return i + 1, true
		}
		if len(a) < 2 || a[0] != '-' {
			return i, true
		}
		i++
		if strings.HasPrefix(a, "--") {
			if !strings.Contains(a, "=") && slices.Contains(longValue, a) {
				i++
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(valueOpts, a[j]) >= 0 {
				if j == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	return min(i, len(args)), true
}

// optsWrap is a wrapper of the form: prog [options] command [args].
func optsWrap(valueOpts string, longValue ...string) func([]any) []inner {
	return func(args []any) []inner {
		i, ok := skipOpts(args, valueOpts, longValue...)
		if !ok {
			return notLiteral
		}
		return wordsInner(args[i:], "")
	}
}

// operandWrap is: prog [options] OPERAND command [args] (timeout, chroot).
func operandWrap(valueOpts string, longValue ...string) func([]any) []inner {
	return func(args []any) []inner {
		i, ok := skipOpts(args, valueOpts, longValue...)
		if !ok {
			return notLiteral
		}
		if i+1 >= len(args) {
			return nil
		}
		return wordsInner(args[i+1:], "")
	}
}

func wordsInner(words []any, how string) []inner {
	if len(words) == 0 {
		return nil
	}
	return []inner{{words: words, how: how}}
}

func scriptInner(v any, how string) []inner {
	s, ok := v.(string)
	if !ok {
		return []inner{{note: "the command it runs is not a literal string", how: how}}
	}
	return []inner{{script: s, how: how}}
}

// shellWrap finds the command of `bash -c CMD`, `sh -lc CMD` and the like.
// Without -c a shell runs a script file or reads stdin: nothing to see.
func shellWrap(args []any) []inner {
	hasC := false
	for i := 0; i < len(args); i++ {
		a, ok := args[i].(string)
		switch {
		case !ok && hasC:
			return scriptInner(args[i], "-c")
		case !ok:
			return notLiteral
		case a == "--" || a == "-":
			if hasC && i+1 < len(args) {
				return scriptInner(args[i+1], "-c")
			}
			return nil
		case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file":
			i++
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			hasC = hasC || strings.ContainsRune(a[1:], 'c')
		case len(a) > 1 && (a[0] == '+' || a[0] == '-'):
		case hasC:
			return scriptInner(a, "-c")
		default:
			return nil
		}
	}
	return nil
}

// evalWrap: eval joins its arguments and runs them as a command line.
func evalWrap(args []any) []inner {
	words := make([]string, len(args))
	for i, a := range args {
		s, ok := a.(string)
		if !ok {
			return []inner{{note: "eval runs a command that is not a literal string"}}
		}
		words[i] = s
	}
	return []inner{{script: strings.Join(words, " ")}}
}

// envWrap: env [options] [NAME=VALUE...] [command [args]]; -S splits a
// string into a command.
func envWrap(args []any) []inner {
	for i := 0; i < len(args); i++ {
		a, ok := args[i].(string)
		if !ok {
			if u, _ := args[i].(unknown); isAssignment(u.text) {
				continue
			}
			return notLiteral
		}
		switch {
		case a == "-S" || a == "--split-string":
			return splitString(args[i+1:])
		case strings.HasPrefix(a, "--split-string="):
			return splitString(append([]any{strings.TrimPrefix(a, "--split-string=")}, args[i+1:]...))
		case strings.HasPrefix(a, "-S"):
			return splitString(append([]any{a[2:]}, args[i+1:]...))
		case a == "-u" || a == "-C" || a == "--unset" || a == "--chdir":
			i++
		case a == "--" || a == "-" || (len(a) > 1 && a[0] == '-') || isAssignment(a):
		default:
			return wordsInner(args[i:], "")
		}
	}
	return nil
}

func splitString(args []any) []inner {
	in := evalWrap(args)
	in[0].how = "-S"
	return in
}

// isAssignment reports whether a word is NAME=VALUE.
func isAssignment(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for i, r := range s[:eq] {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && !(i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// findWrap finds every -exec, -execdir, -ok and -okdir command; {} is a
// file name known only when find runs.
func findWrap(args []any) []inner {
	var out []inner
	for i := 0; i < len(args); i++ {
		a, _ := args[i].(string)
		if a != "-exec" && a != "-execdir" && a != "-ok" && a != "-okdir" {
			continue
		}
		var words []any
		for i++; i < len(args); i++ {
			s, ok := args[i].(string)
			if ok && (s == ";" || s == "+") {
				break
			}
			if ok && strings.Contains(s, "{}") {
				words = append(words, unknown{text: s})
				continue
			}
			words = append(words, args[i])
		}
		out = append(out, wordsInner(words, a)...)
	}
	return out
}

// xargsWrap: xargs [options] [command [args]] runs command (echo by
// default) with arguments read from its input, which are unknown.
func xargsWrap(args []any) []inner {
	i, ok := skipOpts(args, "adEILnPs", "--arg-file", "--delimiter", "--max-lines",
		"--max-args", "--max-procs", "--max-chars", "--process-slot-var")
	if !ok {
		return notLiteral
	}
	words := slices.Clone(args[i:])
	if len(words) == 0 {
		words = []any{"echo"}
	}
	for j, w := range words {
		if s, ok := w.(string); ok && j > 0 && strings.Contains(s, "{}") {
			words[j] = unknown{text: s}
		}
	}
	return wordsInner(append(words, unknown{text: "(input)"}), "")
}

// commandWrap: command [-p] cmd runs cmd; command -v/-V only looks it up.
func commandWrap(args []any) []inner {
	i, ok := skipOpts(args, "")
	if !ok {
		return notLiteral
	}
	for _, a := range args[:i] {
		if s := a.(string); strings.ContainsAny(s, "vV") && !strings.HasPrefix(s, "--") {
			return nil
		}
	}
	return wordsInner(args[i:], "")
}

// watchWrap: watch [options] command... runs the words through sh -c,
// or directly with -x.
func watchWrap(args []any) []inner {
	i, ok := skipOpts(args, "n", "--interval")
	if !ok {
		return notLiteral
	}
	for _, a := range args[:i] {
		if s := a.(string); s == "--exec" || (!strings.HasPrefix(s, "--") && strings.ContainsRune(s, 'x')) {
			return wordsInner(args[i:], "-x")
		}
	}
	if i == len(args) {
		return nil
	}
	return evalWrap(args[i:])
}

// suWrap: su [options] [user] -c CMD runs CMD through the user's shell.
func suWrap(args []any) []inner {
	for i, a := range args {
		s, ok := a.(string)
		switch {
		case !ok:
			continue
		case (s == "-c" || s == "--command") && i+1 < len(args):
			return scriptInner(args[i+1], "-c")
		case strings.HasPrefix(s, "--command="):
			return scriptInner(strings.TrimPrefix(s, "--command="), "-c")
		}
	}
	return nil
}
