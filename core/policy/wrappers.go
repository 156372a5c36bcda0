package policy

import (
	"slices"
	"strings"
)

// inner is a command a wrapper runs.
type inner struct {
	words  []any  // the wrapped command, program first
	script string // a command line the wrapper hands to a shell
	stdin  string // the language of a program it reads from its input: "sh", "python"
	note   string // set when the wrapped command cannot be known
	how    string // how it is wrapped: "-c", "-exec"
	apart  bool   // it runs later, not fed by this command's input (trap, PROMPT_COMMAND)
}

func (in inner) label(prog string) string {
	switch {
	case in.how == "":
		return prog
	case prog == "":
		return in.how
	}
	return prog + " " + in.how
}

// readsStdin: the wrapper reads a program in lang from its input.
func readsStdin(lang string) []inner {
	return []inner{{stdin: lang, how: "reading its input"}}
}

// isStdinPath reports whether a file operand names the standard input.
func isStdinPath(v any) bool {
	switch v {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return true
	}
	return false
}

// wrappers maps programs that run another command to a function that
// finds it in their arguments.
var wrappers = map[string]func(args []any) []inner{
	"bash": shellWrap, "sh": shellWrap, "zsh": shellWrap, "dash": shellWrap,
	"ksh": shellWrap, "mksh": shellWrap, "ash": shellWrap, "fish": shellWrap, "yash": shellWrap,
	"python": pythonWrap, "pypy": pythonWrap,
	"node": nodeWrap, "nodejs": nodeWrap,
	"perl":   perlWrap,
	"ruby":   rubyWrap,
	"eval":   evalWrap,
	"trap":   trapWrap,
	"source": sourceWrap,
	".":      sourceWrap,
	"env":    envWrap,
	"export": declWrap, "declare": declWrap, "typeset": declWrap, "local": declWrap, "readonly": declWrap,
	"alias":  aliasWrap,
	"hash":   rebindWrap("p"),
	"enable": rebindWrap("f"),
	"read":   setsVarWrap, "mapfile": setsVarWrap, "readarray": setsVarWrap, "printf": printfWrap,
	"find":     findWrap,
	"xargs":    xargsWrap,
	"parallel": parallelWrap,
	"command":  commandWrap,
	"watch":    watchWrap,
	"su":       suWrap,
	"runuser":  suWrap,
	"sudo":     sudoWrap,
	"doas":     doasWrap,
	"flock":    flockWrap,
	"script":   scriptWrap,
	"strace":   straceWrap,
	"busybox":  appletWrap,
	"toybox":   appletWrap,
	"timeout":  operandWrap("sk", "--signal", "--kill-after"),
	"chroot":   chrootWrap,
	"nohup":    optsWrap(""),
	"builtin":  optsWrap(""),
	"setsid":   optsWrap(""),
	"unbuffer": optsWrap(""),
	"exec":     optsWrap("a"),
	"nice":     optsWrap("n", "--adjustment"),
	"time":     optsWrap("fo", "--format", "--output"),
	"stdbuf":   optsWrap("ioe", "--input", "--output", "--error"),
	"ionice":   optsWrap("cnpPu", "--class", "--classdata", "--pid", "--pgid", "--uid"),
	"ltrace":   optsWrap("aAeFlnopsuxDw", "--output", "--library", "--indent", "--align", "--config"),
}

// versioned finds the wrapper of a versioned program name: python3.12,
// perl5.36, bash5.
func versioned(prog string) func([]any) []inner {
	base := strings.TrimRight(prog, "0123456789.")
	if base == prog || base == "" {
		return nil
	}
	return wrappers[base]
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
		if _, ok := args[i].(string); !ok { // "$T" unquoted could be no word or many
			return notLiteral
		}
		return wordsInner(args[i+1:], "")
	}
}

// concat appends b to a without allocating when a is empty.
func concat(a, b []inner) []inner {
	if len(a) == 0 {
		return b
	}
	return append(a, b...)
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
// Without -c a shell runs a script file, or with -s, no operand or
// /dev/stdin reads its commands from its input.
func shellWrap(args []any) []inner {
	hasC, hasS := false, false
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
			return shellOperands(args[i+1:], hasC, hasS)
		case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file":
			i++
		case a == "--help" || a == "--version":
			return nil
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			hasC = hasC || strings.ContainsRune(a[1:], 'c')
			hasS = hasS || strings.ContainsRune(a[1:], 's')
		case len(a) > 1 && (a[0] == '+' || a[0] == '-'):
		case hasC:
			return scriptInner(a, "-c")
		default:
			return shellOperands(args[i:], hasC, hasS)
		}
	}
	return shellOperands(nil, hasC, hasS)
}

// shellOperands: with -s the operands are parameters and the commands come
// from the input; otherwise the first operand is a script file.
func shellOperands(ops []any, hasC, hasS bool) []inner {
	switch {
	case hasC:
		return nil // -c without a command is an error
	case hasS || len(ops) == 0 || isStdinPath(ops[0]):
		return readsStdin("sh")
	}
	return nil
}

// interpWrap is a language interpreter: inline flags take a program
// argument (judged by the program's name), exit flags print and exit,
// valueOpts take the next word. Without a program or script file, or
// with "-" or /dev/stdin, it reads its program from its input.
func interpWrap(lang, inline, exit, valueOpts string, longValue ...string) func([]any) []inner {
	return func(args []any) []inner {
		for i := 0; i < len(args); i++ {
			a, ok := args[i].(string)
			switch {
			case !ok: // a file, or options known only when it runs: judged by name
				return nil
			case a == "-" || isStdinPath(a):
				return readsStdin(lang)
			case a == "--":
				if i+1 < len(args) && args[i+1] != "-" && !isStdinPath(args[i+1]) {
					return nil
				}
				return readsStdin(lang)
			case len(a) < 2 || a[0] != '-':
				return nil // a script file
			case strings.HasPrefix(a, "--"):
				if slices.Contains(longValue, a) {
					i++
				} else if slices.Contains(interpExitLong, strings.SplitN(a, "=", 2)[0]) {
					return nil
				}
			default:
				for j := 1; j < len(a); j++ {
					c := a[j]
					if strings.IndexByte(inline, c) >= 0 || strings.IndexByte(exit, c) >= 0 {
						return nil
					}
					if strings.IndexByte(valueOpts, c) >= 0 {
						if j == len(a)-1 {
							i++
						}
						break
					}
				}
			}
		}
		return readsStdin(lang)
	}
}

// interpExitLong are long options after which an interpreter runs no
// program from its input: it prints, checks, tests or takes one inline.
var interpExitLong = []string{"--version", "--help", "--help-all", "--help-env", "--help-xoptions",
	"--eval", "--print", "--check", "--test", "--run", "--v8-options", "--yydebug", "--dump"}

var (
	pythonWrap = interpWrap("python", "cm", "Vh?", "WXQ")
	nodeWrap   = interpWrap("node", "ep", "vhc", "rC", "--require", "--import", "--loader",
		"--experimental-loader", "--conditions", "--input-type", "--title", "--env-file")
	perlWrap = interpWrap("perl", "eE", "vVh", "")
	rubyWrap = interpWrap("ruby", "e", "vh", "IrCEF")
)

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
// string into a command. Variables that run code are judged (vars.go).
func envWrap(args []any) []inner {
	var vars []any
	for i := 0; i < len(args); i++ {
		a, ok := args[i].(string)
		if !ok {
			if _, _, ok := splitAssign(args[i]); ok {
				vars = appendRisky(vars, args[i])
				continue
			}
			return notLiteral
		}
		switch {
		case a == "-S" || a == "--split-string":
			return concat(envInners(vars), splitString(args[i+1:]))
		case strings.HasPrefix(a, "--split-string="):
			return concat(envInners(vars), splitString(append([]any{strings.TrimPrefix(a, "--split-string=")}, args[i+1:]...)))
		case strings.HasPrefix(a, "-S"):
			return concat(envInners(vars), splitString(append([]any{a[2:]}, args[i+1:]...)))
		case a == "-u" || a == "-C" || a == "--unset" || a == "--chdir":
			i++
		case isEnvAssignment(a):
			vars = appendRisky(vars, a)
		case a == "--" || a == "-" || (len(a) > 1 && a[0] == '-'):
		default:
			return concat(envInners(vars), wordsInner(args[i:], ""))
		}
	}
	return envInners(vars)
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
		if s, _ := a.(string); strings.ContainsAny(s, "vV") && !strings.HasPrefix(s, "--") {
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
		if s, _ := a.(string); s == "--exec" || (!strings.HasPrefix(s, "--") && strings.ContainsRune(s, 'x')) {
			return wordsInner(args[i:], "-x")
		}
	}
	if i == len(args) {
		return nil
	}
	return evalWrap(args[i:])
}
