package policy

import "strings"

// Shell builtins that run or rebind commands later: trap bodies, aliases,
// sourced input, and the variables export, declare, read and printf -v
// set (vars.go).

// trapWrap: trap [-lp] [BODY SIGNAL...] runs BODY when a signal comes.
// "-" or a lone signal resets it; a leading number makes every operand a
// signal (POSIX).
func trapWrap(args []any) []inner {
	i, ok := skipOpts(args, "")
	if !ok {
		return notLiteral
	}
	if i > 0 && args[i-1] != "--" || i == len(args) {
		return nil // -l and -p print
	}
	body, ok := args[i].(string)
	switch {
	case !ok:
		return []inner{{note: "the command trap runs is not a literal string", apart: true}}
	case body == "-" || isNumber(body) || (len(args) == i+1 && isSignal(body)):
		return nil
	}
	return []inner{{script: body, apart: true}}
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// isSignal reports whether s reads as a signal name: INT, SIGTERM, RTMIN+1.
func isSignal(s string) bool {
	return s != "" && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-") == ""
}

// sourceWrap: source FILE runs a file's commands. A file is judged by
// name (docs: known limits), but a process substitution or the input
// carries commands made by this command line.
func sourceWrap(args []any) []inner {
	if len(args) == 0 {
		return nil
	}
	f := args[0]
	if f == "--" && len(args) > 1 {
		f = args[1]
	}
	switch u, _ := f.(unknown); {
	case isStdinPath(f):
		return readsStdin("sh")
	case strings.HasPrefix(u.text, "<(") || strings.HasPrefix(u.text, "$(") || strings.HasPrefix(u.text, "`"):
		return []inner{{note: "it runs commands made only when the command runs: " + u.text}}
	}
	return nil
}

// declWrap: export, declare, local, readonly and typeset set variables;
// those that make programs run code are judged (vars.go). -p and -f only
// print.
func declWrap(args []any) []inner {
	var out []inner
	nameref := false
	for _, a := range args {
		if s, ok := a.(string); ok && (strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+")) {
			if strings.ContainsAny(s, "pfF") {
				return nil
			}
			nameref = nameref || strings.HasPrefix(s, "-") && strings.ContainsRune(s, 'n')
			continue
		}
		if name, v, ok := splitAssign(a); ok {
			out = append(out, varInners(name, v)...)
			if target, _ := v.(string); nameref && varRisk(target) != varPlain {
				out = append(out, inner{note: name + " is another name for " + target + ", which can make programs run code", how: name})
			}
			continue
		}
		switch a := a.(type) {
		case string: // export NAME: its value was set elsewhere
			if varRisk(a) != varPlain {
				out = append(out, inner{note: "it declares " + a + ", whose value is set elsewhere and can make programs run code", how: a})
			}
		case unknown:
			out = append(out, inner{note: "it sets a variable named only when the command runs: " + a.text})
		}
	}
	return out
}

// aliasWrap: alias NAME=VALUE makes NAME run VALUE in later lines; the
// value is judged as a command line (alone, though an alias may end in
// the middle of one).
func aliasWrap(args []any) []inner {
	var out []inner
	for _, a := range args {
		name, v, ok := splitAssign(a)
		switch s, lit := v.(string); {
		case !ok:
			if _, isU := a.(unknown); isU {
				out = append(out, inner{note: "it defines an alias known only when the command runs"})
			}
		case !lit:
			out = append(out, inner{note: "the alias " + name + " runs a command that is not a literal string", how: name + "=", apart: true})
		case s != "":
			out = append(out, inner{script: s, how: name + "=", apart: true})
		}
	}
	return out
}

// rebindWrap: hash -p PATH NAME and enable -f LIB NAME make a name run
// another program or a library's code.
func rebindWrap(flag string) func([]any) []inner {
	return func(args []any) []inner {
		for _, a := range args {
			if s, _ := a.(string); strings.HasPrefix(s, "-") && strings.ContainsAny(s[1:], flag) {
				return []inner{{note: "it makes a command name run another program"}}
			}
		}
		return nil
	}
}

// setsVarWrap: read and mapfile set the variables they name from their
// input; setting one that runs code (vars.go) is unknown.
func setsVarWrap(args []any) []inner {
	for _, a := range args {
		if s, _ := a.(string); varRisk(s) != varPlain {
			return setFromInput(s)
		}
	}
	return nil
}

// printfWrap: printf -v NAME sets NAME to what it would print.
func printfWrap(args []any) []inner {
	for i, a := range args {
		s, _ := a.(string)
		switch {
		case s == "-v" && i+1 < len(args):
			if name, _ := args[i+1].(string); varRisk(name) != varPlain {
				return setFromInput(name)
			}
		case strings.HasPrefix(s, "-v") && varRisk(s[2:]) != varPlain:
			return setFromInput(s[2:])
		case !strings.HasPrefix(s, "-"):
			return nil
		}
	}
	return nil
}

func setFromInput(name string) []inner {
	return []inner{{note: "it sets " + name + ", which can make programs run code, to text the policy does not work out", how: name + "="}}
}
