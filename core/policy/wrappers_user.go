package policy

import "strings"

// Wrappers that run a command as another user or in another root: sudo,
// doas, su, runuser, chroot. Without a command most of them start a shell
// that reads its input.

// chrootWrap: chroot [options] NEWROOT [command]; without a command it
// runs an interactive shell, which reads its input.
func chrootWrap(args []any) []inner {
	i, ok := skipOpts(args, "", "--userspec", "--groups")
	switch {
	case !ok:
		return notLiteral
	case i >= len(args):
		return nil
	case i+1 == len(args):
		return readsStdin("sh")
	}
	return operandWrap("", "--userspec", "--groups")(args)
}

// suWrap: su [options] [user] -c CMD runs CMD through the user's shell;
// without -c the shell reads its commands from su's input.
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
		case s == "--help" || s == "--version":
			return nil
		}
	}
	return readsStdin("sh")
}

// sudoWrap: sudo [options] [NAME=VALUE...] [command]. -s and -i run the
// command through a shell, or without one a shell that reads its input;
// -l, -v, -e, -k/-K alone, -V and -h run nothing.
func sudoWrap(args []any) []inner {
	shell, i := false, 0
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
		if strings.HasPrefix(a, "--") {
			switch strings.SplitN(a, "=", 2)[0] {
			case "--shell", "--login":
				shell = true
			case "--list", "--validate", "--edit", "--version", "--help", "--remove-timestamp":
				return nil
			case "--user", "--group", "--prompt", "--close-from", "--chdir", "--role", "--type",
				"--command-timeout", "--other-user", "--host", "--chroot":
				if !strings.Contains(a, "=") {
					i++
				}
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			switch c := a[j]; {
			case c == 's' || c == 'i':
				shell = true
			case strings.IndexByte("lveVhK", c) >= 0:
				return nil
			case strings.IndexByte("ugpCDrtTUR", c) >= 0:
				if j == len(a)-1 {
					i++
				}
				j = len(a)
			}
		}
	}
	return runAs(args[min(i, len(args)):], shell)
}

// runAs is what sudo and doas run after their options.
func runAs(rest []any, shell bool) []inner {
	n := 0
	for n < len(rest) {
		if s, ok := rest[n].(string); !ok || !isEnvAssignment(s) {
			break
		}
		n++
	}
	out := envInners(rest[:n])
	if n == len(rest) && shell {
		return concat(out, readsStdin("sh"))
	}
	return concat(out, wordsInner(rest[n:], ""))
}

// doasWrap: doas [-Lns] [-C config] [-u user] command; -s alone runs a
// shell that reads its input; -C only checks.
func doasWrap(args []any) []inner {
	i, ok := skipOpts(args, "uC")
	if !ok {
		return notLiteral
	}
	shell := false
	for _, a := range args[:i] {
		s, _ := a.(string) // an option's value may be unknown
		switch {
		case !strings.HasPrefix(s, "-") || strings.HasPrefix(s, "-u"):
		case strings.HasPrefix(s, "-C") || s == "-L":
			return nil
		case strings.ContainsRune(s, 's'):
			shell = true
		}
	}
	return runAs(args[i:], shell)
}
