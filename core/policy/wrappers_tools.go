package policy

import (
	"slices"
	"strings"
)

// Tools that run a command given after their options: flock, script,
// strace, busybox and toybox.

// flockWrap: flock [options] FILE COMMAND [args], flock [options] FILE
// -c CMD, flock [options] FD (no command).
func flockWrap(args []any) []inner {
	i := 0
	for i < len(args) {
		a, ok := args[i].(string)
		if !ok {
			return notLiteral
		}
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		i++
		switch {
		case a == "--command" || a == "-c":
			return commandArg(args, i)
		case strings.HasPrefix(a, "--command="):
			return scriptInner(strings.TrimPrefix(a, "--command="), "-c")
		case a == "--timeout" || a == "--wait" || a == "--conflict-exit-code":
			i++
		case !strings.HasPrefix(a, "--") && strings.IndexAny(a[len(a)-1:], "wE") == 0:
			i++
		}
	}
	if i >= len(args) {
		return nil
	}
	if _, ok := args[i].(string); !ok {
		return notLiteral // "$L" unquoted could be no word or many
	}
	rest := args[i+1:]
	if len(rest) > 0 && (rest[0] == "-c" || rest[0] == "--command") {
		return commandArg(rest, 1)
	}
	return wordsInner(rest, "")
}

// commandArg is the -c CMD whose CMD is args[i].
func commandArg(args []any, i int) []inner {
	if i >= len(args) {
		return nil
	}
	return scriptInner(args[i], "-c")
}

// scriptWrap: script [options] [file] runs -c CMD through a shell, or
// without -c an interactive shell that reads its input.
func scriptWrap(args []any) []inner {
	for i := 0; i < len(args); i++ {
		a, ok := args[i].(string)
		switch {
		case !ok:
			return notLiteral
		case a == "--":
			return readsStdin("sh")
		case a == "--command" || a == "-c":
			return commandArg(args, i+1)
		case strings.HasPrefix(a, "--command="):
			return scriptInner(strings.TrimPrefix(a, "--command="), "-c")
		case a == "--help" || a == "--version" || a == "-h" || a == "-V":
			return nil
		case slices.Contains([]string{"--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format"}, a):
			i++
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			for j := 1; j < len(a); j++ {
				if a[j] == 'c' {
					if j < len(a)-1 {
						return scriptInner(a[j+1:], "-c")
					}
					return commandArg(args, i+1)
				}
				if strings.IndexByte("EIOBTm", a[j]) >= 0 {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		}
	}
	return readsStdin("sh")
}

// straceWrap: strace [options] command; -E NAME=VALUE sets a variable for
// the command.
func straceWrap(args []any) []inner {
	const valueOpts = "abeEIoOpPsSuUX"
	i, ok := skipOpts(args, valueOpts, "--output", "--attach", "--trace-path", "--string-limit",
		"--columns", "--user", "--env", "--detach-on", "--summary-sort-by")
	if !ok {
		return notLiteral
	}
	var vars []any
	for k := 0; k < i; k++ {
		a, _ := args[k].(string) // an option's value may be unknown
		switch {
		case a == "--env" && k+1 < i:
			vars = append(vars, args[k+1])
		case strings.HasPrefix(a, "--env="):
			vars = append(vars, strings.TrimPrefix(a, "--env="))
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			if j := strings.IndexAny(a[1:], valueOpts) + 1; j > 0 && a[j] == 'E' {
				if j < len(a)-1 {
					vars = append(vars, a[j+1:])
				} else if k+1 < i {
					vars = append(vars, args[k+1])
				}
			}
		}
	}
	for _, v := range vars {
		if _, _, ok := splitAssign(v); !ok && v != nil {
			if u, isU := v.(unknown); isU {
				return []inner{{note: "strace -E sets a variable named only when the command runs: " + u.text}}
			}
		}
	}
	return concat(envInners(vars), wordsInner(args[i:], ""))
}

// appletWrap: busybox APPLET [args] and toybox APPLET [args] run the
// applet; options (--list, --install) run nothing.
func appletWrap(args []any) []inner {
	if len(args) == 0 {
		return nil
	}
	a, ok := args[0].(string)
	switch {
	case !ok:
		return notLiteral
	case strings.HasPrefix(a, "-"):
		return nil
	}
	return wordsInner(args, "")
}
