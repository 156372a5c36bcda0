package runtime

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/tools"
)

// Limits of the context files found below the workspace in one session.
const (
	maxSubContextTotal = 128 << 10 // all of them together
	maxSubContextDirs  = 500       // directories looked in
)

// subContextTools are the built-in tools whose successful calls bring the
// context files of the directories they touch, as Gemini CLI's read_file,
// read_many_files, list_directory, write_file and replace do (Claude Code:
// Read, Edit, Write). Searches (grep, glob) do not: they name many
// directories without working in them.
var subContextTools = map[string]bool{"read_file": true, "read_many_files": true, "ls": true, "edit_file": true, "write_file": true}

// contentSet holds the digests of the context texts a session was given,
// so the same text is given once.
type contentSet map[[32]byte]bool

func (s contentSet) add(text string) bool {
	k := sha256.Sum256([]byte(text))
	if s[k] {
		return false
	}
	s[k] = true
	return true
}

// subContext loads, on demand, the context files (agent.contextFiles) of
// the directories below the workspace root that a tool call touches: the
// first call that reads, lists or writes under a directory gets the
// context files of that directory and of those between it and the root,
// appended to its result, labelled with their paths. Each directory is
// looked in once per conversation and each text given once (the system
// prompt's count). A directory or file that resolves outside the
// workspace is refused and named; .git, node_modules and directories
// .gitignore ignores are not looked in; the number of directories and
// the bytes are bounded, and a cut says so.
type subContext struct {
	mu       sync.Mutex
	root     string // the workspace root; its own files are in the system prompt
	realRoot string
	top      string // imports stay inside it (the repository's top)
	names    []string
	notice   func(string)

	maxDirs, maxTotal int

	base    contentSet // the system prompt's texts
	seen    contentSet
	looked  map[string]bool // directories looked in: true when usable
	checked int
	total   int
	dirCap  bool // the directory limit was reported
	ignores map[string][]gitignore.Pattern
}

func newSubContext(root string, names []string, base contentSet, notice func(string)) *subContext {
	if len(names) == 0 {
		names = DefaultContextFiles
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	top := root
	if dirs := contextDirs(root); len(dirs) > 0 {
		top = dirs[0]
	}
	c := &subContext{root: filepath.Clean(root), realRoot: real, top: top, names: names, notice: notice,
		maxDirs: maxSubContextDirs, maxTotal: maxSubContextTotal, base: base}
	c.Forget()
	return c
}

// Forget starts over: the conversation no longer holds what was given (a
// reset, a compaction), so the next call under a directory brings its
// context files again.
func (c *subContext) Forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = contentSet{}
	for k := range c.base {
		c.seen[k] = true
	}
	c.looked, c.checked, c.total, c.dirCap = map[string]bool{}, 0, 0, false
	c.ignores = map[string][]gitignore.Pattern{}
}

// Add is the text to append to the result of a call of the tool name:
// the context files newly found for the paths it touched, or "".
func (c *subContext) Add(name string, inv tool.Invocation, res tool.Result) string {
	if !subContextTools[name] || res.Error != nil || inv == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, dir := range c.touched(name, inv, res) {
		c.dir(&b, dir)
	}
	return b.String()
}

// touched lists the directories a call worked in, in order.
func (c *subContext) touched(name string, inv tool.Invocation, res tool.Result) []string {
	var dirs []string
	switch name {
	case "ls":
		dirs = inv.Locations()
	case "read_many_files":
		read, _ := res.Data.([]string)
		for _, p := range read {
			if !filepath.IsAbs(p) {
				p = filepath.Join(c.root, filepath.FromSlash(p))
			}
			dirs = append(dirs, filepath.Dir(p))
		}
	default:
		for _, p := range inv.Locations() {
			dirs = append(dirs, filepath.Dir(p))
		}
	}
	return dirs
}

// dir writes the new context files of the directories from the root's
// child down to dir.
func (c *subContext) dir(b *strings.Builder, dir string) {
	dir = filepath.Clean(dir)
	rel, ok := below(c.root, dir)
	if !ok { // an absolute path through the root's real location
		if rel, ok = below(c.realRoot, dir); !ok {
			return // the root (in the system prompt) or outside the workspace
		}
	}
	d := c.root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, part)
		usable, done := c.looked[d]
		if !done {
			var remember bool
			usable, remember = c.look(b, d, part)
			if remember {
				c.looked[d] = usable
			}
		}
		if !usable {
			return
		}
	}
}

// look looks in directory d: usable is false when d and everything below
// it give no context (ignored, a link out, missing, the limit); remember
// says the answer holds for the rest of the conversation.
func (c *subContext) look(b *strings.Builder, d, part string) (usable, remember bool) {
	if part == ".git" || part == "node_modules" || c.ignored(d) {
		return false, true
	}
	if c.checked >= c.maxDirs {
		if !c.dirCap {
			c.dirCap = true
			c.say(fmt.Sprintf("context files: stopped looking in subdirectories after %d directories in this conversation; %s and the others are not looked in (/clear, or a new conversation, looks again)", c.maxDirs, c.relName(d)))
		}
		return false, false
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		return false, false // not there (yet)
	}
	c.checked++
	if !inside(c.realRoot, real) {
		c.say(fmt.Sprintf("context files: directory %s refused: it is a symbolic link to %s, outside the workspace %s; its context files are not read", c.relName(d), real, c.root))
		return false, true
	}
	for _, n := range c.names {
		c.file(b, filepath.Join(d, n))
	}
	return true, true
}

// file adds the context file at path when it is there, inside the
// workspace, new, and within the limits.
func (c *subContext) file(b *strings.Builder, path string) {
	fi, err := os.Lstat(path)
	if err != nil {
		return
	}
	label := c.relName(path)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return // a dangling link
	}
	if !inside(c.realRoot, real) {
		c.say(fmt.Sprintf("context file %s refused: it is a symbolic link to %s, outside the workspace %s; copy the file into the project to use it", label, real, c.root))
		return
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		if fi, err = os.Stat(real); err != nil {
			return
		}
	}
	if !fi.Mode().IsRegular() {
		return
	}
	text, ok := readContext(path)
	if !ok || !c.seen.add(text) {
		return
	}
	if c.total+len(text) > c.maxTotal {
		fmt.Fprintf(b, "\n\n[context file %s not read: the context files of subdirectories passed %d KiB in this conversation]", label, c.maxTotal>>10)
		c.say(fmt.Sprintf("context file %s not read: the context files of subdirectories passed %d KiB in this conversation", label, c.maxTotal>>10))
		return
	}
	c.total += len(text)
	im := skills.Imports{Boundary: c.top}
	text = im.Expand(path, text)
	for _, n := range im.Notes {
		c.say(n)
	}
	dir := c.relName(filepath.Dir(path))
	fmt.Fprintf(b, "\n\n--- Context from %s (instructions for the files under %s/) ---\n%s\n--- End of context from %s ---", label, dir, text, label)
	c.say(fmt.Sprintf("context file %s read (instructions for %s/)", label, dir))
}

func (c *subContext) say(s string) {
	if c.notice != nil {
		c.notice(s)
	}
}

// relName is path relative to the workspace root, with forward slashes.
func (c *subContext) relName(path string) string {
	if rel, err := filepath.Rel(c.root, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}

// ignored reports whether directory d is ignored by the .gitignore files
// from the repository's top down to d's parent (and .git/info/exclude).
func (c *subContext) ignored(d string) bool {
	rel, err := filepath.Rel(c.top, d)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	ps := c.patterns(filepath.Dir(d))
	for i := len(ps) - 1; i >= 0; i-- {
		switch ps[i].Match(parts, true) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

// patterns are the ignore patterns in force in directory dir (at or below
// the top), cached.
func (c *subContext) patterns(dir string) []gitignore.Pattern {
	if ps, ok := c.ignores[dir]; ok {
		return ps
	}
	var ps []gitignore.Pattern
	rel, err := filepath.Rel(c.top, dir)
	switch {
	case err != nil || strings.HasPrefix(rel, ".."):
		return nil
	case rel == ".":
		ps = tools.ReadIgnoreFile(filepath.Join(dir, ".git", "info", "exclude"), nil)
		ps = append(ps, tools.ReadIgnoreFile(filepath.Join(dir, ".gitignore"), nil)...)
	default:
		parent := c.patterns(filepath.Dir(dir))
		own := tools.ReadIgnoreFile(filepath.Join(dir, ".gitignore"), strings.Split(filepath.ToSlash(rel), "/"))
		ps = append(append(ps, parent...), own...)
	}
	c.ignores[dir] = ps
	return ps
}

// below is dir relative to root when it is strictly below root.
func below(root, dir string) (string, bool) {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// inside reports whether real is dir or below it (both with links
// resolved).
func inside(dir, real string) bool {
	rel, err := filepath.Rel(dir, real)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
