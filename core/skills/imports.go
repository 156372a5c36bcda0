package skills

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// MaxImportDepth bounds nested @file imports of context files; Gemini CLI
// and Claude Code stop at five hops too.
const MaxImportDepth = 5

// Import limits: each imported file, and all of one context file's
// imports together.
const (
	maxImportFile  = 64 << 10
	maxImportTotal = 256 << 10
)

// Imports expands the @path imports of context files (GEMINI.md,
// CLAUDE.md), as Gemini CLI and Claude Code read them: an @ at the start
// of a line or after a space, followed by a path that starts with '.',
// '/' or a letter and runs to the next space; the imported file's text
// takes its place, itself expanded (paths relative to the importing
// file). @ inside `code` and ``` blocks is text. Every path must stay
// inside Boundary after symbolic links are followed: `@../../etc/passwd`
// or a link out of the project is refused and reported, never read.
type Imports struct {
	Boundary string
	// Notes collects what the user should hear of: refused imports,
	// missing files, the depth limit; each names file:line.
	Notes []string
	total int
}

// Expand returns the text of the context file at path with its imports
// expanded.
func (im *Imports) Expand(path, text string) string {
	return im.expand(path, text, 0, map[string]bool{path: true})
}

func (im *Imports) expand(file, text string, depth int, chain map[string]bool) string {
	code := codeRegions(text)
	var b strings.Builder
	last := 0
	for _, imp := range findImports(text) {
		if inRegions(code, imp.start) {
			continue
		}
		b.WriteString(text[last:imp.start])
		last = imp.end
		b.WriteString(im.one(file, text, imp, depth, chain))
	}
	b.WriteString(text[last:])
	return b.String()
}

// one is the replacement of one import.
func (im *Imports) one(file, text string, imp importRef, depth int, chain map[string]bool) string {
	orig := text[imp.start:imp.end]
	where := fmt.Sprintf("%s:%d", file, 1+strings.Count(text[:imp.start], "\n"))
	if strings.Contains(imp.path, "://") {
		return orig // a URL, not a file
	}
	target := imp.path
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(file), target)
	}
	if !insideLexically(im.Boundary, target) {
		// refused before any look at the disk: whether an outside path
		// exists is not told
		im.note("%s: import %s refused: it is outside %s; a context file imports files of its own project only", where, orig, im.Boundary)
		return "[import " + orig + " refused: outside the project]"
	}
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		if strings.ContainsAny(imp.path, "/.") {
			im.note("%s: import %s: no such file; fix the path or remove the line", where, orig)
		}
		return orig // a word like @someone stays as it is
	}
	if !inside(im.Boundary, real) {
		im.note("%s: import %s refused: it is outside %s (after symbolic links); a context file imports files of its own project only", where, orig, im.Boundary)
		return "[import " + orig + " refused: outside the project]"
	}
	if depth+1 > MaxImportDepth {
		im.note("%s: import %s not read: more than %d nested imports", where, orig, MaxImportDepth)
		return orig
	}
	if chain[real] {
		return orig // an import cycle: the file is already being read
	}
	data, err := im.read(real)
	if err != nil {
		im.note("%s: import %s not read: %v", where, orig, err)
		return orig
	}
	next := make(map[string]bool, len(chain)+1)
	for k := range chain {
		next[k] = true
	}
	next[real] = true
	body := im.expand(real, strings.TrimSpace(data), depth+1, next)
	return fmt.Sprintf("<!-- Imported from: %s -->\n%s\n<!-- End of import from: %s -->", imp.path, body, imp.path)
}

func (im *Imports) note(format string, args ...any) {
	im.Notes = append(im.Notes, fmt.Sprintf(format, args...))
}

// read reads one imported file within the limits.
func (im *Imports) read(real string) (string, error) {
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("not a regular file")
	}
	if im.total >= maxImportTotal {
		return "", fmt.Errorf("the imports of this context file passed %d KiB", maxImportTotal>>10)
	}
	f, err := os.Open(real)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxImportFile+1))
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("not a text file")
	}
	text := string(data)
	if len(data) > maxImportFile {
		text = string(data[:maxImportFile]) + fmt.Sprintf("\n[cut at %d KiB]", maxImportFile>>10)
	}
	im.total += len(text)
	return text, nil
}

// inside reports whether real (a path with links resolved) is boundary or
// below it, once boundary's own links are resolved too.
func inside(boundary, real string) bool {
	if boundary == "" {
		return false
	}
	rb, err := filepath.EvalSymlinks(boundary)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(rb, real)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// insideLexically reports whether the cleaned path p is boundary or below
// it, before links are looked at.
func insideLexically(boundary, p string) bool {
	rel, err := filepath.Rel(filepath.Clean(boundary), filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

type importRef struct {
	start, end int // of "@path" in the text
	path       string
}

// findImports lists the @path references of text.
func findImports(text string) []importRef {
	var out []importRef
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && !isSpace(text[i-1])) {
			continue
		}
		j := i + 1
		for j < len(text) && !isSpace(text[j]) {
			j++
		}
		p := text[i+1 : j]
		if p != "" && (p[0] == '.' || p[0] == '/' || isLetter(p[0])) {
			out = append(out, importRef{start: i, end: j, path: p})
		}
		i = j
	}
	return out
}

// codeRegions are the spans of text inside backtick code (`x`, ```x```).
func codeRegions(text string) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		fence := strings.Repeat("`", n)
		end := strings.Index(text[i+n:], fence)
		if end < 0 {
			break
		}
		stop := i + n + end + n
		out = append(out, [2]int{i, stop})
		i = stop
	}
	return out
}

func inRegions(rs [][2]int, at int) bool {
	for _, r := range rs {
		if at >= r[0] && at < r[1] {
			return true
		}
	}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
