package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
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
	dirFd int // the directory holding it; open only while visit runs
}

// size is the entry's size in bytes (0 when it cannot be read), from the
// directory the walk holds open: not through a path that may have changed.
// Call it only from visit.
func (ent walkEntry) size() int64 {
	var st unix.Stat_t
	if unix.Fstatat(ent.dirFd, ent.info.Name(), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return 0
	}
	return st.Size
}

// walkBase is the open directory a walk starts from. Everything below it
// is opened relative to it with openBeneath, which follows no symlink, so
// a directory swapped for a symlink while the walk runs is not followed
// out; the walk's check that entries are no symlinks is then not a race.
type walkBase struct {
	abs string // the base as the model named it; entries' abs start here
	f   *os.File
	fd  int
}

// openWalkBase opens l for a walk, or for grep's search of one file;
// fi tells which it is.
func openWalkBase(l Loc) (*walkBase, fs.FileInfo, error) {
	f, err := l.Open()
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return &walkBase{abs: l.Abs, f: f, fd: int(f.Fd())}, fi, nil
}

func (b *walkBase) Close() error { return b.f.Close() }

// open opens rel (a walkEntry's rel; "" is the base) with flags.
func (b *walkBase) open(rel string, flags int) (int, error) {
	if rel == "" {
		rel = "."
	}
	return openBeneath(b.fd, rel, flags)
}

// readDir lists directory rel in name order. The caller closes d.
func (b *walkBase) readDir(abs, rel string) (d *os.File, entries []fs.DirEntry) {
	fd, err := b.open(rel, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, nil
	}
	d = os.NewFile(uintptr(fd), abs)
	entries, _ = d.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return d, entries
}

// errStopWalk ends a walk early without an error.
var errStopWalk = errors.New("stop walk")

// walkTree visits every entry below base depth-first in name order,
// skipping .git, hidden names (unless asked), symlinks (a walk never
// leaves the tree through one) and whatever .gitignore files, the
// repository's info/exclude and git's global excludes ignore. visit
// returns false to keep out of a directory, or errStopWalk to stop.
func walkTree(ctx context.Context, base *walkBase, o walkOpts, visit func(walkEntry) (bool, error)) error {
	ig := newIgnorer(base.abs, o.fallbackTop, o.getenv)
	topRel, _ := filepath.Rel(ig.top, base.abs)
	w := &walker{ctx: ctx, base: base, o: o, visit: visit}
	err := w.dir(base.abs, "", splitRel(topRel), 1, ig.child(base.abs, splitRel(topRel)))
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

type walker struct {
	ctx   context.Context
	base  *walkBase
	o     walkOpts
	visit func(walkEntry) (bool, error)
	spawn func(func() error) // parallel walks read subdirectories through it
}

// walkTreeParallel is walkTree reading directories on several goroutines:
// visit is called concurrently and in no particular order. Search tools
// use it and sort what they collect.
func walkTreeParallel(ctx context.Context, base *walkBase, o walkOpts, visit func(walkEntry) (bool, error)) error {
	ig := newIgnorer(base.abs, o.fallbackTop, o.getenv)
	topRel, _ := filepath.Rel(ig.top, base.abs)
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	sem := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	w := &walker{ctx: ctx, base: base, o: o, visit: visit}
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
	w.spawn(func() error { return w.dir(base.abs, "", parts, 1, ig.child(base.abs, parts)) })
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
	d, entries := w.base.readDir(abs, rel)
	if d == nil {
		return nil // unreadable directories are skipped, as git and rg do
	}
	defer d.Close()
	dirFd := int(d.Fd())
	for _, e := range entries {
		if err := w.entry(abs, rel, parts, depth, ig, e, dirFd); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) entry(abs, rel string, parts []string, depth int, ig *ignorer, e fs.DirEntry, dirFd int) error {
	name := e.Name()
	if name == ".git" || (!w.o.includeHidden && strings.HasPrefix(name, ".")) || e.Type()&fs.ModeSymlink != 0 {
		return nil
	}
	isDir := e.IsDir()
	childParts := append(parts[:len(parts):len(parts)], name)
	if ig.ignored(childParts, isDir) {
		return nil
	}
	ent := walkEntry{abs: filepath.Join(abs, name), rel: joinRel(rel, name), dir: isDir, depth: depth, info: e, dirFd: dirFd}
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
