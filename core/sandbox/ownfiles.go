package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ollmSecrets are what no process reads in $OLLM_HOME, even one of the
// user's own that runs from there: OAuth tokens, sealed secrets, the
// store verification key and state, session transcripts.
var ollmSecrets = []string{"auth", "tokens", "secrets", "state", "sessions", "trusted-hooks.json", "trusted-workspaces.json"}

// AllowOwnFiles lets a hook or MCP server of the user's own (builtin,
// user or directory scope: never a workspace's or a download's) read the
// files its command line names inside $OLLM_HOME, which is hidden from
// every sandboxed process: `sh $OLLM_HOME/hooks/guard.sh` reads
// $OLLM_HOME/hooks, a script right in $OLLM_HOME is readable alone, and
// nothing under ollm's own secrets is ever granted. words are the
// command, its arguments and the words of command lines inside them;
// only absolute paths that exist count.
func (p *Policy) AllowOwnFiles(ollmHome string, words []string) {
	if p.Off() || ollmHome == "" {
		return
	}
	home := filepath.Clean(ollmHome)
	for _, w := range words {
		for _, f := range strings.FieldsFunc(w, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '"' || r == '\'' || r == ';' || r == '='
		}) {
			if !filepath.IsAbs(f) {
				continue
			}
			f = filepath.Clean(f)
			rel, err := filepath.Rel(home, f)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			if slices.ContainsFunc(ollmSecrets, func(s string) bool { return within(f, filepath.Join(home, s)) }) {
				continue
			}
			fi, err := os.Stat(f)
			if err != nil {
				continue
			}
			grant := f
			if !fi.IsDir() && filepath.Dir(f) != home {
				grant = filepath.Dir(f)
			}
			if !slices.Contains(p.Read, grant) {
				p.Read = append(slices.Clone(p.Read), grant)
			}
		}
	}
}
