package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Loc is a path the model named, checked by Paths.Locate. Abs is that
// path, absolute and clean: what the tools show and report. The file is
// reached only through an os.Root opened on the allowed directory that
// holds its real path, by the real path below it; a symlink on the way
// that is swapped after the check is followed only while it stays inside
// that directory. So a read, a write, its temporary file and its rename
// cannot be redirected out, however the links change during the call.
//
// When an operation fails, the path is checked again: if it now leads
// outside, the error is the check's (kind outside_workspace, with the
// reason) rather than os.Root's "path escapes from parent".
type Loc struct {
	Abs   string
	dir   string // the allowed directory, symlinks resolved
	rel   string // the checked real path below dir; "." is dir itself
	paths *Paths // for the check after a failure
}

func (l Loc) root() (*os.Root, error) { return os.OpenRoot(l.dir) }

// explain replaces err by the refusal the path now gets, if any.
func (l Loc) explain(err error) error {
	if err == nil || l.paths == nil {
		return err
	}
	if _, cerr := l.paths.Locate(l.Abs); cerr != nil {
		return cerr
	}
	return err
}

// Open opens the file (or directory) for reading.
func (l Loc) Open() (*os.File, error) {
	r, err := l.root()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.Open(l.rel)
	return f, l.explain(err)
}

// Stat follows symlinks, inside the allowed directory only.
func (l Loc) Stat() (fs.FileInfo, error) {
	r, err := l.root()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	fi, err := r.Stat(l.rel)
	return fi, l.explain(err)
}

// WriteFile replaces the file atomically: a temporary file created
// exclusively beside it is written, given perm, fsynced and renamed over
// it, then the directory is fsynced. Missing parent directories are made
// (0755). Every step goes through the root.
func (l Loc) WriteFile(data []byte, perm fs.FileMode) error {
	return l.explain(l.writeFile(data, perm))
}

func (l Loc) writeFile(data []byte, perm fs.FileMode) error {
	r, err := l.root()
	if err != nil {
		return err
	}
	defer r.Close()
	dir := filepath.Dir(l.rel)
	if err := r.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := writeTemp(r, dir, filepath.Base(l.rel), data, perm)
	if err != nil {
		return err
	}
	if err := r.Rename(tmp, l.rel); err != nil {
		r.Remove(tmp)
		return err
	}
	return syncDir(r, dir)
}

// writeTemp writes data to a new temporary file in dir and returns its name.
func writeTemp(r *os.Root, dir, base string, data []byte, perm fs.FileMode) (string, error) {
	f, name, err := createTemp(r, dir, base)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm) // fchmod: the file just made, not whatever the name now is
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Remove(name)
		return "", err
	}
	return name, nil
}

// createTemp creates dir/.base.tmp-<random> with O_EXCL, so it never
// opens an existing file or a symlink.
func createTemp(r *os.Root, dir, base string) (*os.File, string, error) {
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, name, err
		}
	}
	return nil, "", fmt.Errorf("create a temporary file for %s in %s: every name tried exists", base, dir)
}

func syncDir(r *os.Root, dir string) error {
	d, err := r.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
