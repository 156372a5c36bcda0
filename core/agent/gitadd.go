package agent

import (
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ollm/ollm/internal/shellword"
)

// gitAdds is what the `git add` commands of a command line stage before
// its first `git commit` (`git add x && git commit -m ...`), so that
// on_git_commit's files name them although they are not staged yet when
// the hook runs. Paths are absolute; all is `git add -A`/`--all`; update
// is `git add -u` (tracked changes only). Words that are not literal
// (`git add "$f"`) are not known and left out.
type gitAdds struct {
	paths       []string // absolute paths or patterns (a pathspec with * ? [)
	all, update bool
}

func (g gitAdds) empty() bool { return len(g.paths) == 0 && !g.all && !g.update }

// parseGitAdds reads cmd (bash) with cwd as the directory it runs in.
func parseGitAdds(cmd, cwd string) gitAdds {
	var g gitAdds
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return g
	}
	done := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if done {
			return false
		}
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		words := make([]string, len(call.Args))
		for i, w := range call.Args {
			words[i] = literal(w) // "" when not literal
		}
		if path.Base(words[0]) != "git" {
			return true
		}
		dir, sub, rest := cwd, "", []string(nil)
		for i := 1; i < len(words); i++ {
			w := words[i]
			switch {
			case (w == "-C" || w == "-c" || w == "--git-dir" || w == "--work-tree") && i+1 < len(words):
				if w == "-C" && words[i+1] != "" {
					dir = absUnder(dir, words[i+1])
				}
				i++
				continue
			case strings.HasPrefix(w, "-"):
				continue
			}
			sub, rest = w, words[i+1:]
			break
		}
		switch sub {
		case "commit":
			done = true
		case "add", "stage":
			g.addArgs(dir, rest)
		}
		return true
	})
	return g
}

func (g *gitAdds) addArgs(dir string, args []string) {
	opts := true
	for _, a := range args {
		switch {
		case a == "":
		case opts && a == "--":
			opts = false
		case opts && (a == "-A" || a == "--all"):
			g.all = true
		case opts && (a == "-u" || a == "--update"):
			g.update = true
		case opts && strings.HasPrefix(a, "-"):
		default:
			g.paths = append(g.paths, absUnder(dir, a))
		}
	}
}

func absUnder(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// stages reports whether the adds stage the file at abs (a worktree
// change; tracked is false for an untracked file).
func (g gitAdds) stages(abs string, tracked bool) bool {
	if g.all || (g.update && tracked) {
		return true
	}
	for _, p := range g.paths {
		if abs == p || strings.HasPrefix(abs, p+string(filepath.Separator)) {
			return true
		}
		if strings.ContainsAny(p, "*?[") && pathspecMatch(p, abs) {
			return true
		}
	}
	return false
}

// pathspecMatch matches a git glob pathspec as git does by default: the
// wildcards also match "/" (`*.go` stages sub/x.go too).
func pathspecMatch(pattern, abs string) bool {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(pattern[i:], ']')
			if j < 0 {
				b.WriteString(regexp.QuoteMeta("["))
				continue
			}
			b.WriteString(pattern[i : i+j+1])
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(abs)
}

// literal is the value of a word made of plain text and quotes only, ""
// for one with expansions ("$f", $(cmd)).
func literal(w *syntax.Word) string {
	v, _ := shellword.Literal(w)
	return v
}
