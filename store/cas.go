package store

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gofrs/flock"
	"golang.org/x/mod/sumdb/dirhash"

	"github.com/ollm/ollm/internal/lazyre"
)

// ExecEntry is the name of the synthetic entry that folds executable bits
// into an h1 hash. No file can have this name: neither git trees nor POSIX
// file names can contain a NUL byte.
const ExecEntry = "\x00exec"

// HashDir returns the h1 hash of the files under dir: Go's dirhash.Hash1
// over the slash-separated relative paths, plus, when any file is
// executable, one entry named ExecEntry whose content is the sorted list
// of executable paths, one per line, and when any is a symbolic link, one
// entry named LinkEntry listing them (a link is hashed as a file holding
// its target's text). A tree of plain files hashes exactly as
// dirhash.Hash1 of its files. A link that is absolute, leads out of the
// tree or points to nothing is refused (*LinkError), and so is any other
// special file: the store holds plain files and links inside itself only.
func HashDir(dir string) (string, error) {
	files, exec, links, err := listTree(dir)
	if err != nil {
		return "", err
	}
	return hashFiles(files, exec, links, func(name string) (io.ReadCloser, error) {
		if t, ok := links[name]; ok {
			return io.NopCloser(strings.NewReader(t)), nil
		}
		return os.Open(filepath.Join(dir, filepath.FromSlash(name)))
	})
}

// HashFiles is HashDir over any tree of regular files: files are
// slash-separated paths, exec the subset that is executable, open reads
// one file.
func HashFiles(files, exec []string, open func(string) (io.ReadCloser, error)) (string, error) {
	return hashFiles(files, exec, nil, open)
}

// hashFiles is HashFiles with links (path to target text), which are in
// files too.
func hashFiles(files, exec []string, links map[string]string, open func(string) (io.ReadCloser, error)) (string, error) {
	list := append([]string(nil), files...)
	var modes, linked string
	if len(exec) > 0 {
		sorted := append([]string(nil), exec...)
		sort.Strings(sorted)
		modes = strings.Join(sorted, "\n") + "\n"
		list = append(list, ExecEntry)
	}
	if len(links) > 0 {
		linked = strings.Join(sortedKeys(links), "\n") + "\n"
		list = append(list, LinkEntry)
	}
	return dirhash.Hash1(list, func(name string) (io.ReadCloser, error) {
		switch name {
		case ExecEntry:
			return io.NopCloser(strings.NewReader(modes)), nil
		case LinkEntry:
			return io.NopCloser(strings.NewReader(linked)), nil
		}
		return open(name)
	})
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// listTree walks dir and returns its files (links included), the
// executable ones and the links with their targets.
func listTree(dir string) (files, exec []string, links map[string]string, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := checkLink(dir, rel)
			if err != nil {
				return err
			}
			if links == nil {
				links = map[string]string{}
			}
			links[rel] = target
			files = append(files, rel)
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: %s is not a regular file (special files are not allowed in an extension)", dir, rel)
		}
		files = append(files, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Mode()&0o111 != 0 {
			exec = append(exec, rel)
		}
		return nil
	})
	return files, exec, links, err
}

// ChecksumError is a tree whose hash is not the one the lock pins. It is a
// security error: nothing enters the store, and it is never retried.
type ChecksumError struct {
	Name   string // extension or team profile
	Source string // URL or path as written
	Ref    string
	Commit string
	Want   string // from ollm.lock
	Got    string // computed over what was fetched
	Fix    string // the command that resolves it once the change is trusted
}

func (e *ChecksumError) Error() string {
	where := e.Source
	if e.Ref != "" {
		where += "@" + e.Ref
	}
	if e.Commit != "" {
		where += " (commit " + e.Commit + ")"
	}
	fix := e.Fix
	if fix == "" {
		fix = fmt.Sprintf("ollm ext update %s", e.Name)
	}
	return fmt.Sprintf("verifying %s from %s: checksum mismatch\n"+
		"\tollm.lock:  %s\n\tdownloaded: %s\n\n"+
		"SECURITY ERROR\n"+
		"The content differs from what ollm.lock pins. The source may have been\n"+
		"tampered with, or the lock was edited by hand. Nothing was installed.\n"+
		"If you have checked the change and trust it, run `%s`.", e.Name, where, e.Want, e.Got, fix)
}

// CAS is the content-addressed extension store: one read-only directory
// per (hash, name), at <hex of the hash>/<name>, so the extension's folder
// keeps its own name as the last path element (a Claude Code plugin's
// Python hooks import their package by it: `from hookify.core import ...`
// with the plugin's parent on sys.path). Entries appear only by rename
// after their hash was checked, so no half-written entry is ever visible
// under its final name. Stores written before this layout held
// <hex>-<name> directories; Has and Migrate move such an entry to its new
// place the first time it is asked for.
type CAS struct{ Dir string }

// NewCAS returns the store rooted at dir (Home.Store()).
func NewCAS(dir string) *CAS { return &CAS{Dir: dir} }

var (
	entryNameRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	hexDirRE    = lazyre.New(`^[0-9a-f]{64}$`)
	legacyRE    = lazyre.New(`^[0-9a-f]{64}-[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
)

// EntryName is the key of (hash, name) in generations, the gc's keep set
// and the verifier's cache: the hex of the sha256 the h1 hash carries, a
// dash, and the name. The entry's directory is EntryDir of it.
func EntryName(hash, name string) (string, error) {
	hx, err := entryHex(hash, name)
	if err != nil {
		return "", err
	}
	return hx + "-" + name, nil
}

func entryHex(hash, name string) (string, error) {
	if !entryNameRE.MatchString(name) {
		return "", fmt.Errorf("invalid name %q: use letters, digits, '.', '_' and '-'", name)
	}
	sum, ok := strings.CutPrefix(hash, "h1:")
	if !ok {
		return "", fmt.Errorf("%s: unsupported hash %q (want h1:...)", name, hash)
	}
	raw, err := base64.StdEncoding.DecodeString(sum)
	if err != nil || len(raw) != 32 {
		return "", fmt.Errorf("%s: malformed hash %q", name, hash)
	}
	return hex.EncodeToString(raw), nil
}

// EntryDir is the directory of the entry whose EntryName is key:
// <store>/<hex>/<name>. A key that is not an EntryName maps to itself
// under the store.
func (c *CAS) EntryDir(key string) string {
	if legacyRE.MatchString(key) {
		return filepath.Join(c.Dir, key[:64], key[65:])
	}
	return filepath.Join(c.Dir, key)
}

// Path is the directory of (hash, name); it may not exist.
func (c *CAS) Path(hash, name string) (string, error) {
	hx, err := entryHex(hash, name)
	if err != nil {
		return "", err
	}
	return filepath.Join(c.Dir, hx, name), nil
}

// Migrate moves the entry (hash, name) from the old layout
// (<store>/<hex>-<name>) to its place (<store>/<hex>/<name>) when only the
// old one exists. The hash covers the files, not where they are, so the
// entry is still verified at use as any other.
func (c *CAS) Migrate(hash, name string) error {
	dir, err := c.Path(hash, name)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	key, _ := EntryName(hash, name)
	old := filepath.Join(c.Dir, key)
	fi, err := os.Lstat(old)
	if err != nil || !fi.IsDir() {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("move store entry %s to %s: %w", old, dir, err)
	}
	// A directory needs write permission to move between parents.
	_ = os.Chmod(old, 0o755)
	if err := os.Rename(old, dir); err != nil {
		_ = os.Chmod(old, 0o555)
		if errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrNotExist) {
			return nil // a concurrent process moved it
		}
		return fmt.Errorf("move store entry %s to %s: %w", old, dir, err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		return err
	}
	return syncDir(filepath.Dir(dir))
}

// Has reports whether (hash, name) is in the store and its files still
// hash to hash. A corrupted entry reports ok=false with corrupt=true.
func (c *CAS) Has(hash, name string) (dir string, ok, corrupt bool, err error) {
	dir, err = c.Path(hash, name)
	if err != nil {
		return "", false, false, err
	}
	if err := c.Migrate(hash, name); err != nil {
		return dir, false, false, err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return dir, false, false, nil
	}
	got, err := HashDir(dir)
	if err != nil || got != hash {
		return dir, false, true, nil
	}
	return dir, true, false, nil
}

func (c *CAS) tmpRoot() string  { return filepath.Join(c.Dir, ".tmp") }
func (c *CAS) lockFile() string { return filepath.Join(c.Dir, ".lock") }

// Temp is a private working directory inside the store. Fetch into
// Tree(), then Commit or Discard it. It is held under a file lock, so
// Recover never removes a directory a live process still uses.
type Temp struct {
	Dir  string
	lock *flock.Flock
}

// Tree is where the fetched files go.
func (t *Temp) Tree() string { return filepath.Join(t.Dir, "tree") }

// Discard removes the temporary directory.
func (t *Temp) Discard() {
	_ = removeAll(t.Dir)
	_ = t.lock.Unlock()
	_ = os.Remove(t.Dir + ".lock")
}

// NewTemp creates a temporary directory under the store.
func (c *CAS) NewTemp() (*Temp, error) {
	if err := os.MkdirAll(c.tmpRoot(), 0o755); err != nil {
		return nil, fmt.Errorf("create store: %w", err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	dir := filepath.Join(c.tmpRoot(), hex.EncodeToString(b[:]))
	fl := flock.New(dir + ".lock")
	if err := fl.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "tree"), 0o755); err != nil {
		_ = fl.Unlock()
		return nil, err
	}
	return &Temp{Dir: dir, lock: fl}, nil
}

// Recover removes temporary directories left by a killed process (their
// file lock is free) and returns how many it removed.
func (c *CAS) Recover() (int, error) {
	entries, err := os.ReadDir(c.tmpRoot())
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			// A lock file alone: the process was killed between taking
			// the lock and creating its directory.
			base, ok := strings.CutSuffix(e.Name(), ".lock")
			if _, err := os.Lstat(filepath.Join(c.tmpRoot(), base)); ok && errors.Is(err, fs.ErrNotExist) {
				lock := filepath.Join(c.tmpRoot(), e.Name())
				fl := flock.New(lock)
				if got, err := fl.TryLock(); err == nil && got {
					_ = os.Remove(lock)
					_ = fl.Unlock()
				}
			}
			continue
		}
		dir := filepath.Join(c.tmpRoot(), e.Name())
		fl := flock.New(dir + ".lock")
		ok, err := fl.TryLock()
		if err != nil || !ok {
			continue // in use by a live process
		}
		if err := removeAll(dir); err == nil {
			n++
		}
		_ = fl.Unlock()
		_ = os.Remove(dir + ".lock")
	}
	return n, nil
}

// Commit hashes t's tree and, if want is empty or equal, moves it into the
// store as (hash, name) and makes it read-only. On a mismatch it returns
// a *ChecksumError (filled with the name and hashes; the caller adds the
// source) and the tree is discarded. An existing intact entry is kept and
// the new copy discarded; a corrupted one is replaced.
func (c *CAS) Commit(t *Temp, name, want string) (dir, hash string, err error) {
	defer t.Discard()
	hash, err = HashDir(t.Tree())
	if err != nil {
		return "", "", err
	}
	if want != "" && hash != want {
		return "", hash, &ChecksumError{Name: name, Want: want, Got: hash}
	}
	dir, err = c.Path(hash, name)
	if err != nil {
		return "", "", err
	}
	if _, ok, corrupt, _ := c.Has(hash, name); ok {
		return dir, hash, nil
	} else if corrupt {
		if err := c.remove(dir); err != nil {
			return "", "", err
		}
	}
	if err := readOnlyTree(t.Tree()); err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", "", fmt.Errorf("install %s into the store: %w", name, err)
	}
	if err := os.Rename(t.Tree(), dir); err != nil {
		return "", "", fmt.Errorf("install %s into the store: %w", name, err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		return "", "", err
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return "", "", err
	}
	return dir, hash, syncDir(c.Dir)
}

// readOnlyTree makes every file 0444 (0555 when executable) and every
// directory below root 0555. root itself stays writable until it has been
// renamed (a directory needs write permission to move between parents).
func readOnlyTree(root string) error {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root {
				dirs = append(dirs, p)
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil // chmod would follow it
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o444)
		if fi.Mode()&0o111 != 0 {
			mode = 0o555
		}
		return os.Chmod(p, mode)
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i], 0o555); err != nil {
			return err
		}
	}
	return nil
}

// remove takes an entry out of the store: it is first renamed into the
// temporary area, so it vanishes from its final name at once, then deleted.
func (c *CAS) remove(dir string) error {
	if err := os.MkdirAll(c.tmpRoot(), 0o755); err != nil {
		return err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	trash := filepath.Join(c.tmpRoot(), "rm-"+hex.EncodeToString(b[:]))
	_ = os.Chmod(dir, 0o755)
	if err := os.Rename(dir, trash); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return removeAll(trash)
}

// removeAll deletes a tree that may hold read-only directories.
func removeAll(root string) error {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(root)
}

// Entry is one directory of the store.
type Entry struct {
	Name string // its EntryName: <hex>-<name>
	Dir  string // <store>/<hex>/<name>, or <store>/<hex>-<name> in the old layout
}

// Entries lists the store's entries, sorted by name: those of the layout
// <hex>/<name> and those of the old one, <hex>-<name>, not yet moved.
func (c *CAS) Entries() ([]Entry, error) {
	des, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, d := range des {
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		dir := filepath.Join(c.Dir, d.Name())
		if !hexDirRE.MatchString(d.Name()) {
			out = append(out, Entry{Name: d.Name(), Dir: dir})
			continue
		}
		subs, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		if len(subs) == 0 {
			// Left by a gc or commit that was interrupted.
			out = append(out, Entry{Name: d.Name(), Dir: dir})
		}
		for _, s := range subs {
			out = append(out, Entry{Name: d.Name() + "-" + s.Name(), Dir: filepath.Join(dir, s.Name())})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// GC removes every entry whose name is not in keep, plus abandoned
// temporary directories, and returns the names it removed (or would
// remove, with dryRun). Hold LockExclusive while calling it.
func (c *CAS) GC(keep map[string]bool, dryRun bool) ([]string, error) {
	entries, err := c.Entries()
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if keep[e.Name] {
			continue
		}
		if !dryRun {
			if err := c.remove(e.Dir); err != nil {
				return removed, err
			}
			if parent := filepath.Dir(e.Dir); parent != c.Dir {
				_ = os.Remove(parent) // the <hex> folder, once empty
			}
		}
		removed = append(removed, e.Name)
	}
	if !dryRun {
		_, err = c.Recover()
	}
	return removed, err
}

// LockShared holds the store against a concurrent gc; several applies may
// hold it at once. Call the returned function to release it.
func (c *CAS) LockShared() (func(), error) { return c.lock(true) }

// LockExclusive holds the store alone (gc).
func (c *CAS) LockExclusive() (func(), error) { return c.lock(false) }

func (c *CAS) lock(shared bool) (func(), error) {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create store: %w", err)
	}
	fl := flock.New(c.lockFile())
	lock := fl.Lock
	if shared {
		lock = fl.RLock
	}
	if err := lock(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", c.Dir, err)
	}
	return func() { _ = fl.Unlock() }, nil
}
