package sandbox

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dirWatch is an inotify watch on every directory of a tree but inside
// .git and node_modules (GitDirsUnder's rule).
type dirWatch struct {
	fd   int
	root string
	dirs map[int32]string
}

const dirWatchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// newDirWatch watches root's tree; broken when it cannot (no inotify,
// too many directories or watches).
func newDirWatch(root string) (*dirWatch, bool) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, true
	}
	w := &dirWatch{fd: fd, root: root, dirs: map[int32]string{}}
	if !w.add(root) {
		w.close()
		return nil, true
	}
	return w, false
}

// add watches dir and the directories below it; false when the limit or
// the kernel's watches ran out.
func (w *dirWatch) add(dir string) bool {
	if len(w.dirs) >= gitWatchLimit {
		return false
	}
	wd, err := unix.InotifyAddWatch(w.fd, dir, dirWatchMask)
	if err != nil {
		return os.IsNotExist(err) || err == unix.ENOTDIR || err == unix.EACCES
	}
	w.dirs[int32(wd)] = dir
	es, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, e := range es {
		if e.IsDir() && e.Name() != ".git" && e.Name() != "node_modules" {
			if !w.add(filepath.Join(dir, e.Name())) {
				return false
			}
		}
	}
	return true
}

// drain reads every queued event; with found set, it appends each .git
// (or bare repository's HEAD) that appeared, looking through every
// directory created or moved in.
func (w *dirWatch) drain(found *[]string) {
	readEvents(w.fd, func(wd int32, mask uint32, name []byte) {
		if mask&unix.IN_Q_OVERFLOW != 0 {
			// Events were lost: look at the whole tree.
			if found != nil {
				all, _ := GitDirsUnder(w.root, gitWatchLimit)
				*found = append(*found, all...)
			}
			return
		}
		dir, ok := w.dirs[wd]
		if !ok || len(name) == 0 {
			return
		}
		n := string(name)
		p := filepath.Join(dir, n)
		switch {
		case n == ".git":
			if found != nil {
				*found = append(*found, p)
			}
		case mask&unix.IN_ISDIR != 0 && n != "node_modules":
			// A directory made or moved in: what is in it already, and
			// what comes later.
			if found != nil {
				sub, _ := GitDirsUnder(p, gitWatchLimit)
				*found = append(*found, sub...)
			}
			w.add(p)
		}
		if found != nil && (n == "HEAD" || n == "objects" || n == "refs") && bare(dir) {
			*found = append(*found, filepath.Join(dir, "HEAD"))
		}
	})
}

// bare reports whether dir is shaped like a bare repository.
func bare(dir string) bool {
	h, err := os.Lstat(filepath.Join(dir, "HEAD"))
	if err != nil || !h.Mode().IsRegular() {
		return false
	}
	for _, d := range []string{"objects", "refs"} {
		if fi, err := os.Lstat(filepath.Join(dir, d)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

func (w *dirWatch) close() { unix.Close(w.fd) }
