package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ollm/ollm/core/tool"
)

// Paths confines file tools to the workspace root and the extra directories.
type Paths struct {
	roots []rootDir // roots[0] is the workspace
}

type rootDir struct {
	given string // absolute, cleaned
	real  string // with symlinks resolved
}

// NewPaths resolves the workspace root and the extra directories.
func NewPaths(root string, extra []string) (*Paths, error) {
	p := &Paths{}
	for i, d := range append([]string{root}, extra...) {
		if i > 0 && !filepath.IsAbs(d) {
			d = filepath.Join(root, d)
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("directory %s: %w", d, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("allowed directory %s: %w (fix tools.extraDirs or the workspace path)", abs, err)
		}
		p.roots = append(p.roots, rootDir{given: abs, real: real})
	}
	return p, nil
}

// Root is the workspace root.
func (p *Paths) Root() string { return p.roots[0].given }

// Resolve turns a path from the model into an absolute path inside an
// allowed directory. Relative paths are taken from the workspace root.
// It refuses, with the reason, paths that climb out with "..", absolute
// paths elsewhere, and paths whose symlinks lead outside.
func (p *Paths) Resolve(input string) (string, error) {
	l, err := p.Locate(input)
	return l.Abs, err
}

// Locate is Resolve returning a Loc: the tools open, create, rename and
// list through it, never by name, so the check holds when the call runs.
func (p *Paths) Locate(input string) (Loc, error) {
	abs, err := p.lexical(input)
	if err != nil {
		return Loc{}, err
	}
	real, err := realPath(abs)
	if err != nil {
		return Loc{}, &tool.Error{Kind: tool.ErrPermission, Message: fmt.Sprintf("resolve %s: %v", input, err)}
	}
	dir, ok := p.holding(real)
	if !ok {
		return Loc{}, outside("%s leads through a symlink to %s, which is outside %s; symlinks may not leave the allowed directories", input, real, p.describe())
	}
	rel, err := filepath.Rel(dir, real)
	if err != nil {
		return Loc{}, &tool.Error{Kind: tool.ErrPermission, Message: fmt.Sprintf("resolve %s: %v", input, err)}
	}
	return Loc{Abs: abs, dir: dir, rel: rel, paths: p}, nil
}

// lexical checks the path as written, before looking at the disk.
func (p *Paths) lexical(input string) (string, error) {
	if input == "" || input == "." {
		return p.Root(), nil
	}
	if filepath.IsAbs(input) {
		abs := filepath.Clean(input)
		if !p.insideGiven(abs) && !p.insideReal(abs) {
			return "", outside("absolute path %s is outside %s; use a path inside them or add its directory to tools.extraDirs", abs, p.describe())
		}
		return abs, nil
	}
	rel := filepath.Clean(input)
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", outside("path %s climbs out of the workspace %s with \"..\"; use a path inside it", input, p.Root())
	}
	return filepath.Join(p.Root(), rel), nil
}

func outside(format string, args ...any) error {
	return &tool.Error{Kind: tool.ErrOutsideRoot, Message: fmt.Sprintf(format, args...)}
}

func (p *Paths) describe() string {
	if len(p.roots) == 1 {
		return "the workspace " + p.Root()
	}
	var extra []string
	for _, r := range p.roots[1:] {
		extra = append(extra, r.given)
	}
	return fmt.Sprintf("the workspace %s and the extra directories (%s)", p.Root(), strings.Join(extra, ", "))
}

func (p *Paths) insideGiven(abs string) bool {
	for _, r := range p.roots {
		if within(r.given, abs) {
			return true
		}
	}
	return false
}

func (p *Paths) insideReal(real string) bool {
	_, ok := p.holding(real)
	return ok
}

// holding is the real path of the allowed directory that holds real.
func (p *Paths) holding(real string) (string, bool) {
	for _, r := range p.roots {
		if within(r.real, real) {
			return r.real, true
		}
	}
	return "", false
}

// within reports whether path is dir or below it; both are clean and absolute.
func within(dir, path string) bool {
	if path == dir {
		return true
	}
	if dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

// realPath resolves the symlinks of the longest existing prefix of abs and
// appends the rest, so a file about to be created is checked too.
func realPath(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if fi, lerr := os.Lstat(abs); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, rerr := os.Readlink(abs) // dangling symlink: judge by its target
		if rerr != nil {
			return "", rerr
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		return realPath(filepath.Clean(target))
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	rp, err := realPath(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(abs)), nil
}

// Rel shows abs relative to the workspace root when it is inside it.
func (p *Paths) Rel(abs string) string {
	if rel, err := filepath.Rel(p.Root(), abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return abs
}
