package sandbox

import (
	"os"
	"slices"
	"sync"
)

// GitWatch holds the git repositories that appear in a workspace while
// hooks or MCP servers run there: the sandbox cannot stop a process from
// creating a .git where there was none (the kernel has no rule per name),
// and the user's git would run its config and hooks outside any sandbox.
// The shell tool compares walks around each command; a hook runs at every
// event and a server's call may be short, and a walk of a large workspace
// takes milliseconds, so GitWatch watches the workspace's directories
// with inotify and looks only where something was created.
//
// Around each run: Begin, then End, which moves aside (HoldNewGitDirs'
// rule) every repository created while a run was going on. What is
// created while none runs is the user's and left alone. One GitWatch
// serves a session's hooks and servers; it is safe for concurrent use.
type GitWatch struct {
	root   string
	mu     sync.Mutex
	active int
	w      *dirWatch // nil until the first Begin, or when it cannot watch
	broken bool      // it could not: End walks instead
	before []string  // the walk at Begin when broken
	seen   []string  // found during runs, held at End
}

// NewGitWatch watches root once a run begins.
func NewGitWatch(root string) *GitWatch {
	return &GitWatch{root: root}
}

// Begin marks a run that may write the workspace.
func (g *GitWatch) Begin() {
	if g == nil || g.root == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.active == 0 {
		if g.w == nil && !g.broken {
			g.w, g.broken = newDirWatch(g.root)
		}
		if g.w != nil {
			g.w.drain(nil) // the user's, while nothing ran
		}
		if g.broken {
			g.before, _ = GitDirsUnder(g.root, gitWatchLimit)
		}
	}
	g.active++
}

// End closes a run begun with Begin and holds what appeared since.
func (g *GitWatch) End() []Held {
	if g == nil || g.root == "" {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.active > 0 {
		g.active--
	}
	var found []string
	switch {
	case g.w != nil:
		g.w.drain(&found)
	case g.broken:
		after, _ := GitDirsUnder(g.root, gitWatchLimit)
		for _, p := range after {
			if !slices.Contains(g.before, p) {
				found = append(found, p)
			}
		}
		g.before = after
	}
	var out []Held
	done := map[string]bool{}
	for _, p := range found {
		if done[p] {
			continue
		}
		done[p] = true
		if _, err := os.Lstat(p); err != nil {
			continue // gone already (the shell's own check moved it)
		}
		h := Held{Path: p}
		h.To, h.Err = holdGitDir(g.root, p)
		out = append(out, h)
	}
	return out
}

// Close stops watching.
func (g *GitWatch) Close() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w != nil {
		g.w.close()
		g.w = nil
	}
	g.broken = true
}

// gitWatchLimit bounds the directories watched (and walked).
const gitWatchLimit = 20000
