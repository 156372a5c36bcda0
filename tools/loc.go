package tools

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Loc is a path the model named, checked by Paths.Locate. Abs is that
// path, absolute and clean: what the tools show and report. The file is
// reached only through an os.Root opened on the allowed directory that
// holds its real path, by the real path below it; a symlink on the way
// that is swapped after the check is followed only while it stays inside
// that directory, and a write follows none. So a read, a write, its
// temporary file and its rename cannot be redirected out, however the
// links change during the call, and a write cannot be redirected onto a
// trust file inside (store.TrustPath judged the real path).
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
// (0755). Unlike a read, a write follows no symlink at all: each directory
// from the allowed one down is opened with O_NOFOLLOW, so the file written
// is the real path that was checked (a trust file is judged by it) even
// when a directory on the way is swapped for a link to .git after the
// check; such a swap fails the write.
func (l Loc) WriteFile(data []byte, perm fs.FileMode) error {
	return l.explain(l.writeFile(data, perm))
}

func (l Loc) writeFile(data []byte, perm fs.FileMode) error {
	dfd, err := openDirNoFollow(l.dir, filepath.ToSlash(filepath.Dir(l.rel)))
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	base := filepath.Base(l.rel)
	tmp, err := writeTemp(dfd, base, data, perm)
	if err != nil {
		return err
	}
	if err := unix.Renameat(dfd, tmp, dfd, base); err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return &fs.PathError{Op: "rename", Path: l.Abs, Err: err}
	}
	if err := unix.Fsync(dfd); err != nil && err != unix.EINVAL {
		return &fs.PathError{Op: "sync", Path: filepath.Dir(l.Abs), Err: err}
	}
	return nil
}

// openDirNoFollow opens dir/rel (a slash path, "." for dir itself),
// making missing directories (0755) and following no symlink below dir.
func openDirNoFollow(dir, rel string) (int, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	if rel == "." {
		return fd, nil
	}
	at := dir
	for _, part := range strings.Split(rel, "/") {
		at = filepath.Join(at, part)
		if part == "" || part == "." || part == ".." {
			unix.Close(fd)
			return -1, &fs.PathError{Op: "open", Path: at, Err: unix.EINVAL}
		}
		if err := unix.Mkdirat(fd, part, 0o755); err != nil && err != unix.EEXIST {
			unix.Close(fd)
			return -1, &fs.PathError{Op: "mkdir", Path: at, Err: err}
		}
		next, err := openatRetry(fd, part, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		unix.Close(fd)
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: at, Err: err}
		}
		fd = next
	}
	return fd, nil
}

// writeTemp writes data to a new temporary file in the directory dfd and
// returns its name.
func writeTemp(dfd int, base string, data []byte, perm fs.FileMode) (string, error) {
	f, name, err := createTemp(dfd, base)
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
		unix.Unlinkat(dfd, name, 0)
		return "", err
	}
	return name, nil
}

// createTemp creates .base.tmp-<random> in dfd with O_EXCL|O_NOFOLLOW, so
// it never opens an existing file or a symlink.
func createTemp(dfd int, base string) (*os.File, string, error) {
	for range 100 {
		name := "." + base + ".tmp-" + strconv.FormatUint(rand.Uint64(), 36)
		fd, err := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == unix.EINTR || err == unix.EEXIST {
			continue
		}
		if err != nil {
			return nil, "", &fs.PathError{Op: "create", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), name, nil
	}
	return nil, "", fmt.Errorf("create a temporary file for %s: every name tried exists", base)
}
