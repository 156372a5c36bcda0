package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ollm/ollm/internal/shellword"
)

// This file is what an approval of a workspace hook or server covers: the
// directory trees a command line can run code from (RunDirs), hashed
// whole (HashTree), so a script that sources, imports or requires a
// neighbour is covered along with it, wherever the command line names it
// (an argument, a word inside `sh -c "..."`, a path in `python -c` code).

// TreeLimits bound what one run directory may hold: above them it cannot
// be approved (hashing it at every session start would be too slow, and
// a workspace root full of dependencies is a sign the script wants a
// directory of its own).
type TreeLimits struct {
	Files int   // entries (files, directories, links)
	Bytes int64 // bytes of regular files
}

// DefaultTreeLimits are the limits of a run directory.
var DefaultTreeLimits = TreeLimits{Files: 20000, Bytes: 256 << 20}

// TreeLimitError says a run directory is above the limits.
type TreeLimitError struct {
	Dir   string
	What  string // "files" or "bytes"
	Limit int64
}

func (e *TreeLimitError) Error() string {
	return fmt.Sprintf("%s holds more than %d %s, too many to cover by an approval; move the scripts a hook or server runs into a directory of their own", e.Dir, e.Limit, e.What)
}

// projectVars are the variables a hook's command line may use for the
// workspace; they are expanded to its directory before looking for paths.
var projectVars = []string{"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "OLLM_PROJECT_DIR", "OLLM_EXTENSION_DIR"}

// implicitCwd are programs that run code from their working directory
// without naming it on the command line when given one of these flags
// (nil: always): `python3 -c "import lib"` imports from the directory it
// runs in, `make` reads its Makefile there.
var implicitCwd = map[string][]string{
	"python": {"-c", "-m"}, "node": {"-e", "--eval", "-p", "--print", "-r", "--require", "--import"},
	"nodejs": {"-e", "--eval", "-p", "--print", "-r", "--require"}, "bun": {"-e", "--eval", "-p", "--print", "run"},
	"deno": {"eval", "run", "task"}, "ruby": {"-e", "-r", "-I"}, "perl": {"-e", "-E", "-M", "-m", "-I"},
	"php": {"-r"}, "lua": {"-e", "-l"}, "Rscript": {"-e"},
	"make": nil, "gmake": nil, "just": nil, "npm": nil, "yarn": nil, "pnpm": nil, "cargo": nil, "go": nil,
	"rake": nil, "bundle": nil, "gradle": nil, "mvn": nil, "tox": nil, "nox": nil, "poetry": nil, "pipenv": nil, "uv": {"run"},
}

// maxShellDepth bounds how deep command lines inside command lines are
// parsed (sh -c "bash -c '...'").
const maxShellDepth = 4

// RunDirs lists the directories a command line (the program and its
// arguments) can run code from: for every word that names an existing
// file or directory and reads as a path (a slash, . or .., or a script's
// extension: pathLike), the file's directory or the directory itself,
// whether it is an argument or a word of a command line inside one (`sh
// -c "sh scripts/x.sh"`) or a path in inline code; and cwd itself when a
// program reads code from where it runs (`python3 -m mod`, `node -e`,
// `make`). Relative words resolve against cwd. Only directories inside
// one of within are listed (what lies elsewhere is not the
// workspace's: /usr/bin is not hashed); a directory inside another listed
// one is left out, and so is anything under a .git directory.
func RunDirs(words []string, cwd string, within ...string) []string {
	roots := make([]string, 0, len(within))
	for _, w := range within {
		if w == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(w); err == nil {
			w = real
		}
		roots = append(roots, filepath.Clean(w))
	}
	c := &collector{cwd: cwd, seen: map[string]bool{}}
	c.argv(expandProject(words, cwd), 0)
	var out []string
	for _, cand := range c.cands {
		d, ok := runDir(cand, cwd, roots, c.files[cand])
		if ok && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	// keep only the outermost
	kept := out[:0]
	for _, d := range out {
		if !slices.ContainsFunc(kept, func(k string) bool { return within1(d, k) }) {
			kept = append(kept, d)
		}
	}
	return kept
}

func expandProject(words []string, dir string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		for _, v := range projectVars {
			w = strings.ReplaceAll(w, "${"+v+"}", dir)
			w = strings.ReplaceAll(w, "$"+v, dir)
		}
		out[i] = w
	}
	return out
}

// scriptExts are the extensions that make a bare word (no slash) a
// script's name: `node server.js` runs server.js, `touch DONE` runs
// nothing.
var scriptExts = []string{".sh", ".bash", ".zsh", ".fish", ".py", ".pyw", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts",
	".rb", ".pl", ".pm", ".php", ".lua", ".r", ".jl", ".tcl", ".ps1", ".jar", ".go", ".awk", ".sed", ".mk"}

// pathLike reports whether a word can name code to run: it has a slash,
// is . or .., or ends in a script's extension.
func pathLike(w string) bool {
	if w == "." || w == ".." || strings.Contains(w, "/") {
		return true
	}
	return slices.Contains(scriptExts, strings.ToLower(filepath.Ext(w)))
}

// runDir is the directory a candidate word makes runnable, if any.
func runDir(cand, cwd string, roots []string, fileOnly bool) (string, bool) {
	if !pathLike(cand) || strings.HasPrefix(cand, "-") && !strings.Contains(cand, "/") {
		return "", false
	}
	p := cand
	if !filepath.IsAbs(p) {
		if cwd == "" {
			return "", false
		}
		p = filepath.Join(cwd, p)
	}
	fi, err := os.Stat(p)
	if err != nil || fileOnly && fi.IsDir() {
		return "", false
	}
	d := filepath.Clean(p)
	if !fi.IsDir() {
		d = filepath.Dir(d)
	}
	if real, err := filepath.EvalSymlinks(d); err == nil {
		d = real
	}
	for _, r := range roots {
		if within1(d, r) {
			if inGit(d, r) {
				return "", false
			}
			return d, true
		}
	}
	return "", false
}

// within1 reports whether p is dir or inside it.
func within1(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) || dir == string(filepath.Separator)
}

func inGit(d, root string) bool {
	rel, err := filepath.Rel(root, d)
	if err != nil {
		return false
	}
	return slices.Contains(strings.Split(rel, string(filepath.Separator)), ".git")
}

type collector struct {
	cwd   string
	cands []string
	seen  map[string]bool
	files map[string]bool // candidates that count only as a file's name
}

func (c *collector) add(s string) {
	if s != "" && !c.seen[s] {
		c.seen[s] = true
		c.cands = append(c.cands, s)
	}
}

// addFragment adds a piece of a word (a path in inline code): it counts
// only when it names a file, never as a directory (`"$DIR"/x.sh` leaves
// the piece $DIR, which is not what runs).
func (c *collector) addFragment(s string) {
	if s == "" || c.seen[s] {
		return
	}
	c.add(s)
	if c.files == nil {
		c.files = map[string]bool{}
	}
	c.files[s] = true
}

// argv takes one command's words: the program, then its arguments.
func (c *collector) argv(words []string, depth int) {
	if len(words) > 0 {
		if flags, ok := implicitCwd[progName(words[0])]; ok && c.cwd != "" {
			if flags == nil || slices.ContainsFunc(words[1:], func(a string) bool {
				return slices.ContainsFunc(flags, func(f string) bool {
					return a == f || strings.HasPrefix(a, f) && strings.HasPrefix(f, "-") && len(f) == 2
				})
			}) {
				c.add(".")
			}
		}
	}
	for _, w := range words {
		c.word(w, depth)
	}
}

// progName is a program's base name without a version suffix
// (python3.12 -> python).
func progName(p string) string {
	b := filepath.Base(p)
	return strings.TrimRight(b, "0123456789.")
}

// word takes one word: itself, its path-like fragments, and, when it
// reads as a command line, the commands in it.
func (c *collector) word(w string, depth int) {
	c.add(w)
	for _, f := range strings.FieldsFunc(w, notPathRune) {
		c.addFragment(f)
	}
	if depth >= maxShellDepth || !strings.ContainsAny(w, " \t\n;|&()<>`$'\"") {
		return
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(w), "")
	if err != nil {
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		var args []string
		for _, a := range call.Args {
			if v, ok := shellword.Literal(a); ok {
				args = append(args, v)
			}
		}
		c.argv(args, depth+1)
		return true
	})
}

func notPathRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("/._-+@~", r)
}

// HashTree writes dir's tree into h: every entry's path relative to
// base, its type, exec bits and the sha256 of its bytes (a symlink by its
// target, never followed). .git directories are left out. Above limits it
// fails with a *TreeLimitError. Contents come from a cache keyed by each
// file's stat fingerprint, so hashing an unchanged tree again reads no file.
func HashTree(h io.Writer, base, dir string, limits TreeLimits) (int, error) {
	n := 0
	var bytes int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return filepath.SkipAll
		}
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" && p != dir {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(base, p)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		n++
		if limits.Files > 0 && n > limits.Files {
			return &TreeLimitError{Dir: dir, What: "files", Limit: int64(limits.Files)}
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "link\x00%s\x00%s\x00", rel, target)
		case d.IsDir():
			fmt.Fprintf(h, "dir\x00%s\x00", rel)
		case d.Type().IsRegular():
			bytes += info.Size()
			if limits.Bytes > 0 && bytes > limits.Bytes {
				return &TreeLimitError{Dir: dir, What: "bytes", Limit: limits.Bytes}
			}
			sum, err := fileSum(p, info)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "file\x00%s\x00%o\x00%d\x00%x\x00", rel, info.Mode().Perm()&0o111, info.Size(), sum)
		default:
			fmt.Fprintf(h, "other\x00%s\x00%s\x00", rel, info.Mode().Type())
		}
		return nil
	})
	return n, err
}

// statFP is what stat says of a file: a change of content changes
// it (ctime cannot be set back by the file's owner).
type statFP struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64
	mode         fs.FileMode
}

// racyWindow: a file changed this recently is hashed every time, since a
// second write within the file system's timestamp granularity would keep
// its fingerprint.
const racyWindow = 2 * time.Second

var sums = struct {
	sync.Mutex
	m map[string]sumEntry
}{m: map[string]sumEntry{}}

type sumEntry struct {
	fp  statFP
	sum [sha256.Size]byte
}

func fingerprintOf(info fs.FileInfo) (statFP, bool) {
	st := statOf(info)
	if st.ino == 0 && st.ctime == 0 {
		return statFP{}, false // no stat to trust: always read
	}
	return statFP{dev: st.dev, ino: st.ino, size: info.Size(), mtime: info.ModTime().UnixNano(), ctime: st.ctime, mode: info.Mode()}, true
}

// fileSum is the sha256 of p's bytes, from the cache when its fingerprint
// is unchanged.
func fileSum(p string, info fs.FileInfo) ([sha256.Size]byte, error) {
	fp, ok := fingerprintOf(info)
	if ok {
		sums.Lock()
		e, hit := sums.m[p]
		sums.Unlock()
		if hit && e.fp == fp {
			return e.sum, nil
		}
	}
	var sum [sha256.Size]byte
	f, err := os.Open(p)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	hs := sha256.New()
	if _, err := io.Copy(hs, f); err != nil {
		return sum, err
	}
	copy(sum[:], hs.Sum(nil))
	// Cache only what was stable before this read began and still is:
	// a file written within the racy window is read again next time.
	if ok {
		after, err := f.Stat()
		fp2, ok2 := statFP{}, false
		if err == nil {
			fp2, ok2 = fingerprintOf(after)
		}
		limit := time.Now().Add(-racyWindow).UnixNano()
		if ok2 && fp2 == fp && fp.mtime < limit && fp.ctime < limit {
			sums.Lock()
			sums.m[p] = sumEntry{fp: fp, sum: sum}
			sums.Unlock()
		}
	}
	return sum, nil
}
