package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// walkOpts choose what a walk visits.
type walkOpts struct {
	includeHidden bool // visit names starting with "." (.git never)
	maxDepth      int  // 0 = unlimited; 1 = only base's own entries
	getenv        func(string) string
	fallbackTop   string // where ignore rules start when base is in no repository
}

// walkEntry is one file or directory a walk visits.
type walkEntry struct {
	abs   string
	rel   string // relative to the walk's base, with "/"
	dir   bool
	depth int
	info  fs.DirEntry
}

// errStopWalk ends a walk early without an error.
var errStopWalk = errors.New("stop walk")

// walkTree visits every entry below base depth-first in name order,
// skipping .git, hidden names (unless asked), symlinks (a walk never
// leaves the tree through one) and whatever .gitignore files, the
// repository's info/exclude and git's global excludes ignore. visit
// returns false to keep out of a directory, or errStopWalk to stop.
func walkTree(ctx context.Context, base string, o walkOpts, visit func(walkEntry) (bool, error)) error {
	ig := newIgnorer(base, o.fallbackTop, o.getenv)
	topRel, _ := filepath.Rel(ig.top, base)
	w := &walker{ctx: ctx, o: o, visit: visit}
	err := w.dir(base, "", splitRel(topRel), 1, ig.child(base, splitRel(topRel)))
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

type walker struct {
	ctx   context.Context
	o     walkOpts
	visit func(walkEntry) (bool, error)
	spawn func(func() error) // parallel walks read subdirectories through it
}

// walkTreeParallel is walkTree reading directories on several goroutines:
// visit is called concurrently and in no particular order. Search tools
// use it and sort what they collect.
func walkTreeParallel(ctx context.Context, base string, o walkOpts, visit func(walkEntry) (bool, error)) error {
	ig := newIgnorer(base, o.fallbackTop, o.getenv)
	topRel, _ := filepath.Rel(ig.top, base)
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	sem := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	w := &walker{ctx: ctx, o: o, visit: visit}
	w.spawn = func(job func() error) {
		wg.Go(func() {
			sem <- struct{}{}
			err := job()
			<-sem
			if err != nil {
				errOnce.Do(func() { firstErr = err })
			}
		})
	}
	parts := splitRel(topRel)
	w.spawn(func() error { return w.dir(base, "", parts, 1, ig.child(base, parts)) })
	wg.Wait()
	if errors.Is(firstErr, errStopWalk) {
		return nil
	}
	return firstErr
}

func (w *walker) dir(abs, rel string, parts []string, depth int, ig *ignorer) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil // unreadable directories are skipped, as git and rg do
	}
	for _, e := range entries {
		if err := w.entry(abs, rel, parts, depth, ig, e); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) entry(abs, rel string, parts []string, depth int, ig *ignorer, e fs.DirEntry) error {
	name := e.Name()
	if name == ".git" || (!w.o.includeHidden && strings.HasPrefix(name, ".")) || e.Type()&fs.ModeSymlink != 0 {
		return nil
	}
	isDir := e.IsDir()
	childParts := append(parts[:len(parts):len(parts)], name)
	if ig.ignored(childParts, isDir) {
		return nil
	}
	ent := walkEntry{abs: filepath.Join(abs, name), rel: joinRel(rel, name), dir: isDir, depth: depth, info: e}
	descend, err := w.visit(ent)
	if err != nil || !isDir || !descend || (w.o.maxDepth > 0 && depth >= w.o.maxDepth) {
		return err
	}
	if w.spawn != nil {
		w.spawn(func() error { return w.dir(ent.abs, ent.rel, childParts, depth+1, ig.child(ent.abs, childParts)) })
		return nil
	}
	return w.dir(ent.abs, ent.rel, childParts, depth+1, ig.child(ent.abs, childParts))
}

func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// sortedUnique sorts paths and drops duplicates.
func sortedUnique(paths []string) []string {
	sort.Strings(paths)
	out := paths[:0]
	for i, p := range paths {
		if i == 0 || p != paths[i-1] {
			out = append(out, p)
		}
	}
	return out
}

// isHiddenPath reports whether any component of a slash path starts with ".".
func isHiddenPath(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return true
		}
	}
	return false
}
