package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// fsProbe records what a resolution consulted on the filesystem, so a
// cached policy can be dropped when any of it changes (resolvecache).
// A nil fsProbe records nothing.
type fsProbe struct {
	lookups []string // paths looked up (lstat, stat, links followed)
	lists   []string // directories listed
	reads   []string // files whose content was read
}

func (pr *fsProbe) lstat(p string) (fs.FileInfo, error) {
	if pr != nil {
		pr.lookups = append(pr.lookups, p)
	}
	return os.Lstat(p)
}

func (pr *fsProbe) exists(p string) bool {
	_, err := pr.lstat(p)
	return err == nil
}

func (pr *fsProbe) readDir(p string) ([]os.DirEntry, error) {
	if pr != nil {
		pr.lists = append(pr.lists, p)
	}
	return os.ReadDir(p)
}

func (pr *fsProbe) readFile(p string) ([]byte, error) {
	if pr != nil {
		pr.reads = append(pr.reads, p)
	}
	return os.ReadFile(p)
}

func (pr *fsProbe) open(p string) (*os.File, error) {
	if pr != nil {
		pr.reads = append(pr.reads, p)
	}
	return os.Open(p)
}

// evalSymlinks is filepath.EvalSymlinks, one lstat for a path that is not
// there (most secret locations): Lstat follows every link but the last,
// so when it fails EvalSymlinks fails too, after an lstat per component.
func (pr *fsProbe) evalSymlinks(p string) (string, error) {
	if _, err := pr.lstat(p); err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}

// watchSet is what decides the outcome of a fsProbe's calls: for each
// directory (a real path, no links in it) the names looked up in it
// ("" = any: a directory listed), and the files read.
type watchSet struct {
	dirs  map[string]map[string]bool
	files map[string]bool
}

// maxHops bounds the links followed for one path, as the kernel does.
const maxHops = 40

// watchSet walks each path the fsProbe consulted the way the kernel
// resolves it, component by component and through every link, recording
// the directory each name is looked up in. Watching those directories
// for entries created, removed, renamed or changed (and the files read
// for writes) sees every change that could make a new resolution differ.
func (pr *fsProbe) watchSet() watchSet {
	w := watchSet{dirs: map[string]map[string]bool{}, files: map[string]bool{}}
	for _, p := range pr.lookups {
		w.walk(p)
	}
	for _, p := range pr.lists {
		if real, ok := w.walk(p); ok {
			w.name(real, "")
		}
	}
	for _, p := range pr.reads {
		if real, ok := w.walk(p); ok {
			w.files[real] = true
		}
	}
	return w
}

func (w watchSet) name(dir, n string) {
	m := w.dirs[dir]
	if m == nil {
		m = map[string]bool{}
		w.dirs[dir] = m
	}
	m[n] = true
}

// walk resolves p from the root, recording each lookup; it returns the
// real path and whether p exists.
func (w watchSet) walk(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	rest := strings.Split(strings.Trim(filepath.Clean(p), "/"), "/")
	cur := "/"
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		w.name(cur, c)
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", false
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			hops++
			target, err := os.Readlink(next)
			if err != nil || hops > maxHops {
				return "", false
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			rest = append(strings.Split(target, "/"), rest...)
			continue
		}
		if len(rest) > 0 && !fi.IsDir() {
			return "", false
		}
		cur = next
	}
	return cur, true
}
