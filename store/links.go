package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// LinkEntry is the name of the synthetic entry that marks which paths of
// an h1 hash are symbolic links: its content is their sorted list, one per
// line. A link is hashed as a file whose content is its target's text, so
// a tree without links hashes as before, and a link never hashes as the
// regular file holding the same text.
const LinkEntry = "\x00links"

// LinkError is a symbolic link the store refuses: absolute, leading out of
// the tree (by its text or through other links), or pointing at nothing.
type LinkError struct {
	Root, Rel, Target, Why string
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s: the symbolic link %s -> %s %s; only links that stay inside the extension are kept (replace it with a copy of what it points to)",
		e.Root, e.Rel, e.Target, e.Why)
}

// checkLink returns the target of the symbolic link rel under root after
// checking that it is relative and that it, followed as the kernel
// follows it (through other links, ".." after a link taken physically),
// names something that exists inside root.
func checkLink(root, rel string) (string, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	target, err := os.Readlink(p)
	if err != nil {
		return "", err
	}
	bad := func(why string) error { return &LinkError{Root: root, Rel: rel, Target: target, Why: why} }
	if target == "" || filepath.IsAbs(target) || path.IsAbs(target) || strings.HasPrefix(target, `\`) {
		return "", bad("is absolute")
	}
	if strings.ContainsAny(target, "\x00\n") {
		return "", bad("has a NUL or newline in its target")
	}
	if l := path.Join(path.Dir(rel), target); l == ".." || strings.HasPrefix(l, "../") {
		return "", bad("leads out of the tree")
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", bad("points to nothing")
	}
	if err != nil {
		return "", bad("cannot be followed (" + err.Error() + ")")
	}
	if in, err := filepath.Rel(realRoot, real); err != nil || in == ".." || strings.HasPrefix(in, ".."+string(filepath.Separator)) {
		return "", bad("leads out of the tree")
	}
	return target, nil
}

// CheckLinks checks every symbolic link under root as HashDir does, so a
// fetched tree whose links lead out of it is refused before anything
// reads it.
func CheckLinks(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		_, err = checkLink(root, filepath.ToSlash(rel))
		return err
	})
}
