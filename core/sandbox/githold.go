package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
)

// HeldSuffix is what a .git a sandboxed command created is renamed to:
// git no longer finds it, so its hooks and config (core.fsmonitor,
// core.hooksPath) cannot run when the user runs git there.
const HeldSuffix = ".held-by-ollm"

// Held is a .git a sandboxed command created, and what became of it.
type Held struct {
	Path string // the .git as the command created it
	To   string // where it is now ("" when it could not be moved)
	Err  error  // why it could not be moved
}

// String is the line shown to the model and the user.
func (h Held) String() string {
	if filepath.Base(h.Path) == "HEAD" {
		dir := filepath.Dir(h.Path)
		if h.Err != nil {
			return fmt.Sprintf("%s: a new directory shaped like a bare git repository the command created, NOT made harmless (%v): git run there would use its config and hooks outside any sandbox; remove it before you run git there", dir, h.Err)
		}
		return fmt.Sprintf("%s: a new directory shaped like a bare git repository the command created; its HEAD was moved aside to %s so git does not take it for a repository and run its config and hooks outside the sandbox; if you want it, check its config and hooks, then rename it back by hand (mv %s %s)", dir, filepath.Base(h.To), h.To, h.Path)
	}
	if h.Err != nil {
		return fmt.Sprintf("%s: a new git repository the command created, NOT moved aside (%v): git would run its hooks and config outside any sandbox; remove it or check it (git -C %s config --list --local) before you run git there", h.Path, h.Err, filepath.Dir(h.Path))
	}
	return fmt.Sprintf("%s: a new git repository the command created, moved aside to %s so git does not run its hooks and config outside the sandbox; if you want it, check its config and hooks, then rename it back by hand (mv %s %s)", h.Path, filepath.Base(h.To), h.To, h.Path)
}

// HoldNewGitDirs moves aside each .git in after that is not in before
// (lists from GitDirsUnder around a sandboxed command): the sandbox cannot
// stop a command from creating a repository where there was none, and
// the user's git would run its hooks and config unsandboxed. The move
// goes through directory descriptors opened without following links from
// root, so a directory swapped for a link meanwhile cannot redirect it
// to a repository elsewhere; it never replaces an existing name.
func HoldNewGitDirs(root string, before, after []string) []Held {
	var out []Held
	for _, g := range after {
		if slices.Contains(before, g) {
			continue
		}
		h := Held{Path: g}
		h.To, h.Err = holdGitDir(root, g)
		out = append(out, h)
	}
	return out
}
