package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ollmSecrets are what no process reads in $OLLM_HOME, even one of the
// user's own that runs from there: OAuth tokens, sealed secrets, the
// store verification key and state, session transcripts, the prompts
// typed in the TUI (history).
var ollmSecrets = []string{"auth", "tokens", "secrets", "state", "sessions", "history", "trusted-hooks.json", "trusted-workspaces.json"}

// softSecrets are secret locations that also hold the user's own code:
// Claude Code's hooks and commands live in ~/.claude beside its
// credentials. A directory strictly inside one may be granted; a file
// right in one never is.
var softSecrets = []string{".claude", ".codex", ".gemini", ".ollama", ".config/google-chrome", ".config/chromium", ".mozilla", ".cache/huggingface"}

// AllowOwnFiles lets a hook or MCP server of the user's own (builtin,
// user or directory scope: never a workspace's or a download's) read the
// files its command line names in $OLLM_HOME and $HOME, which are hidden
// from every sandboxed process: `sh $OLLM_HOME/hooks/guard.sh` reads
// $OLLM_HOME/hooks, `python3 ~/.claude/hooks/no-force.py` reads
// ~/.claude/hooks. A script right in $HOME or $OLLM_HOME, or in a
// directory that holds a secret location, is readable alone; nothing in
// ollm's own secrets, in a credential directory (~/.ssh, ~/.aws, ...) or
// right in a secret location (~/.claude/.credentials.json) is granted.
// words are the command, its arguments and the words of command lines
// inside them; absolute paths, ~/, $HOME/ and $OLLM_HOME/ count.
func (p *Policy) AllowOwnFiles(env Env, words []string) {
	if p.Off() {
		return
	}
	home, ohome := homeDir(env), ""
	if env.OllmHome != "" {
		ohome = filepath.Clean(env.OllmHome)
	}
	var roots, secret []string
	for _, r := range []string{home, ohome} {
		if r != "" {
			roots = append(roots, r)
		}
	}
	if home != "" {
		for _, sp := range secretPaths {
			secret = append(secret, filepath.Join(home, sp))
		}
	}
	if ohome != "" {
		for _, sp := range ollmSecrets {
			secret = append(secret, filepath.Join(ohome, sp))
		}
	}
	soft := func(d string) bool {
		return home != "" && slices.ContainsFunc(softSecrets, func(sp string) bool { return d == filepath.Join(home, sp) })
	}
	expand := func(w string) string {
		for prefix, dir := range map[string]string{"~/": home, "$HOME/": home, "${HOME}/": home, "$OLLM_HOME/": ohome, "${OLLM_HOME}/": ohome} {
			if dir != "" && strings.HasPrefix(w, prefix) {
				return filepath.Join(dir, w[len(prefix):])
			}
		}
		return w
	}
	for _, w := range words {
		for _, f := range strings.FieldsFunc(w, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '"' || r == '\'' || r == ';' || r == '='
		}) {
			f = expand(f)
			if !filepath.IsAbs(f) {
				continue
			}
			f = filepath.Clean(f)
			if !slices.ContainsFunc(roots, func(r string) bool { return within(f, r) && f != r }) {
				continue
			}
			fi, err := os.Stat(f)
			if err != nil {
				continue
			}
			grant := f
			if !fi.IsDir() {
				grant = filepath.Dir(f)
			}
			// A directory that is a root, a secret location or holds one
			// is too much: the file alone.
			if slices.Contains(roots, grant) || slices.ContainsFunc(secret, func(sp string) bool { return within(sp, grant) }) {
				if fi.IsDir() {
					continue
				}
				grant = f
			}
			// Never a secret: inside a secret location only a directory
			// strictly inside a soft one (~/.claude/hooks).
			if holder := slices.IndexFunc(secret, func(sp string) bool { return within(grant, sp) }); holder >= 0 {
				sp := secret[holder]
				if !soft(sp) || grant == sp || filepath.Dir(grant) == sp && !isDir(grant) {
					continue
				}
			}
			if !slices.Contains(p.Read, grant) {
				p.Read = append(slices.Clone(p.Read), grant)
			}
		}
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
