package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
	"github.com/natefinch/atomic"
)

// Perm values for files ollm writes.
const (
	PermPrivate    fs.FileMode = 0o600 // state, tokens, approvals, resolved profiles
	PermShared     fs.FileMode = 0o644 // files meant for a repository: ollm.cue, ollm.lock
	PermDirPrivate fs.FileMode = 0o700 // directories of files that may hold secrets
)

// PrivateDir makes dir (and its missing parents) with mode 0700, and takes
// the group and other bits off dir if it already exists with them, so
// files that may hold secrets (resolved profiles with settings values, env
// maps and headers) are readable by their owner only, whatever the umask
// or an earlier version of ollm left.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, PermDirPrivate); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, fi.Mode().Perm()&^0o077); err != nil {
			return fmt.Errorf("chmod %s: %w", dir, err)
		}
	}
	return nil
}

// WriteFile replaces path with data atomically: a reader sees the complete
// old or the complete new content, even if the writer is killed. The file is
// written to a temporary sibling, fsynced, renamed over path, and the
// directory is fsynced so the rename survives a crash.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	if err := atomic.WriteFile(path, bytes.NewReader(data)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() != perm {
		if err := os.Chmod(path, perm); err != nil {
			return fmt.Errorf("chmod %s: %w", path, err)
		}
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// WriteJSON writes v as indented JSON with a trailing newline, atomically.
func WriteJSON(path string, v any, perm fs.FileMode) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return WriteFile(path, append(data, '\n'), perm)
}

// ReadJSON decodes path into v. A missing file leaves v untouched and
// reports found=false; a malformed one is an error naming the file and the
// byte offset.
func ReadJSON(path string, v any) (found bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset-1) // Offset is just past the bad byte
			return true, fmt.Errorf("%s:%d:%d: %v", path, line, col, err)
		}
		return true, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

func lineCol(data []byte, off int64) (int, int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// Lock takes an exclusive advisory lock on path+".lock", blocking until it
// is free. Call the returned function to release it.
func Lock(path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	fl := flock.New(path + ".lock")
	if err := fl.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { _ = fl.Unlock() }, nil
}

// UpdateJSON reads path into a fresh T, lets fn change it, and writes it
// back, all under the file's lock, so concurrent processes never lose an
// update.
func UpdateJSON[T any](path string, perm fs.FileMode, fn func(*T) error) error {
	unlock, err := Lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	var v T
	if _, err := ReadJSON(path, &v); err != nil {
		return err
	}
	if err := fn(&v); err != nil {
		return err
	}
	return WriteJSON(path, &v, perm)
}
