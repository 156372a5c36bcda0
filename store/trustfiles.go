package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TrustFile is one entry of the list of files that decide what runs or
// what is allowed: ollm, git and the other agents read them and run what
// they name, most of them without asking again. The sandbox mounts them
// read-only; the in-process tools (write_file, edit_file, an editor's
// fs/write_text_file, `ollm mcp serve`'s tools) write one only when a
// person confirms that exact call (docs/security.md, "Trust files").
type TrustFile struct {
	// Name is a slash path relative to the workspace root; a trailing "/"
	// covers the directory and everything below it.
	Name string
	// Why is what the file decides, as a predicate: a confirmation shows
	// "<name> <why>".
	Why string
	// Sandbox: the sandbox mounts it read-only as a whole. .git is not
	// (git writes objects, refs and the index during a commit); the
	// sandbox protects the parts of it that SandboxTrustNames lists.
	Sandbox bool
}

// gitWhy is what every git directory (and a .git file) decides.
const gitWhy = "git runs the hooks it holds and the commands its config names (core.fsmonitor, core.hooksPath, filters, aliases), outside any sandbox, on the next git command"

// TrustFiles is the list, in the order docs/security.md shows it. A path
// matches it case-insensitively (macOS and Windows file systems fold
// case). Any path component named .git, at any depth, is git's too.
var TrustFiles = []TrustFile{
	{"ollm.cue", "decides what ollm runs: its hooks, MCP servers, extensions, sandbox and policy", true},
	{"ollm.lock", "pins the extensions ollm runs for this workspace", true},
	{".ollm/", "holds the workspace's extensions, skills and hook scripts that ollm runs, and the data extensions keep (which their hooks and servers may run)", true},
	{".mcp.json", "names the MCP servers ollm and other agents start, with their commands and environment", true},
	{".claude/", "holds Claude Code's settings, hooks, commands, agents and skills: the commands it runs and the tools it allows", true},
	{".gemini/", "holds Gemini CLI's settings, commands, extensions and policies: the commands it runs and the tools it allows", true},
	{".vscode/settings.json", "names programs the editor runs when the folder opens (interpreters, formatters, terminal profiles)", true},
	{".vscode/tasks.json", "names commands the editor runs, some as soon as the folder opens", true},
	{".git/", "is git's own directory: " + gitWhy, false},
}

// SandboxTrustNames are the workspace paths (relative, slash-separated,
// no trailing slash) the sandbox mounts read-only: every entry of
// TrustFiles it protects whole, and git's hooks and config.
func SandboxTrustNames() []string {
	var out []string
	for _, t := range TrustFiles {
		if t.Sandbox {
			out = append(out, strings.TrimSuffix(t.Name, "/"))
		}
	}
	return append(out, ".git/hooks", ".git/config")
}

// TrustPath reports whether abs (an absolute path a tool is about to
// write) is a trust file of the workspace ws, of a git directory anywhere,
// or inside ollmHome ($OLLM_HOME), and the sentence saying what it
// decides. It checks the path as given and with the symlinks of its
// longest existing prefix resolved (link/.git/config, a link to .git, a
// link to the file itself), against the root as given and resolved, and
// compares case-insensitively. ollm's own files inside .ollm/ and
// $OLLM_HOME (memory, todos) are written by ollm at paths the model does
// not pick; they never come here.
func TrustPath(ws Workspace, ollmHome, abs string) (why string, ok bool) {
	if !filepath.IsAbs(abs) {
		return "", false
	}
	abs = filepath.Clean(abs)
	paths := []string{abs}
	if real, err := resolvePrefix(abs); err == nil && real != abs {
		paths = append(paths, real)
	}
	roots := variants(ws.Root)
	homes := variants(ollmHome)
	for _, p := range paths {
		if why, ok := trustOne(roots, homes, p); ok {
			return why, true
		}
	}
	for _, p := range paths {
		if d, ok := bareRepo(roots, p); ok {
			return filepath.Base(p) + " is in " + d + ", which is (or becomes with this write) a bare git repository: " + gitWhy, true
		}
	}
	return "", false
}

// bareRepo finds a directory above p, inside a root, that git takes for
// a repository without a .git in its name: HEAD, objects/ and refs/ side
// by side, p counted as present (git runs such a repository's config when
// a command runs in it).
func bareRepo(roots []string, p string) (string, bool) {
	for _, r := range roots {
		if _, ok := below(r, p); !ok {
			continue
		}
		for d, child := filepath.Dir(p), filepath.Base(p); ; d, child = filepath.Dir(d), filepath.Base(d) {
			if _, ok := below(r, d); !ok {
				break
			}
			n := 0
			for _, m := range []string{"HEAD", "objects", "refs"} {
				if strings.EqualFold(child, m) {
					n++
				} else if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
					n++
				}
			}
			if n == 3 {
				rel, _ := below(r, d)
				if rel == "" {
					rel = "the workspace root"
				}
				return rel, true
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	return "", false
}

func trustOne(roots, homes []string, p string) (string, bool) {
	for _, h := range homes {
		if rel, ok := below(h, p); ok {
			shown := "$OLLM_HOME"
			if rel != "" {
				shown += "/" + rel
			}
			return shown + " is ollm's home: the user's profile, approvals, extensions and hooks, which decide what ollm runs and allows", true
		}
	}
	if i := gitComponent(p); i >= 0 {
		parts := strings.Split(filepath.ToSlash(p), "/")
		name := strings.Join(parts[i:], "/")
		for _, r := range roots {
			if rel, ok := below(r, p); ok {
				name = rel
				break
			}
		}
		return name + " belongs to git: " + gitWhy, true
	}
	for _, r := range roots {
		rel, ok := below(r, p)
		if !ok || rel == "" {
			continue
		}
		f := fold(rel)
		for _, t := range TrustFiles {
			n := fold(t.Name)
			if f == strings.TrimSuffix(n, "/") || (strings.HasSuffix(n, "/") && strings.HasPrefix(f, n)) {
				if name := strings.TrimSuffix(t.Name, "/"); f != fold(name) {
					return rel + " is inside " + name + ", which " + t.Why, true
				}
				return rel + " " + t.Why, true
			}
		}
	}
	return "", false
}

// below is p relative to root (slash-separated, "" for root itself) when
// p is root or inside it, compared case-insensitively.
func below(root, p string) (string, bool) {
	if root == "" {
		return "", false
	}
	fr, fp := fold(filepath.ToSlash(root)), fold(filepath.ToSlash(p))
	if fp == fr {
		return "", true
	}
	if fr == "/" {
		return filepath.ToSlash(p)[1:], true
	}
	if !strings.HasPrefix(fp, fr+"/") {
		return "", false
	}
	// fold keeps the byte length of ASCII only; cut the original by the
	// count of components instead.
	parts := strings.Split(filepath.ToSlash(p), "/")
	return strings.Join(parts[strings.Count(fr, "/")+1:], "/"), true
}

// gitComponent is the index (in p split at "/") of the first component
// that names a git directory or a .git file, or -1.
func gitComponent(p string) int {
	for i, c := range strings.Split(filepath.ToSlash(p), "/") {
		if foldName(c) == ".git" {
			return i
		}
	}
	return -1
}

// variants are root as given and with its symlinks resolved.
func variants(root string) []string {
	if root == "" {
		return nil
	}
	root = filepath.Clean(root)
	out := []string{root}
	if real, err := resolvePrefix(root); err == nil && real != root {
		out = append(out, real)
	}
	return out
}

// fold lowers a slash path and folds each component as a case-insensitive
// file system would see it.
func fold(p string) string {
	parts := strings.Split(p, "/")
	for i, c := range parts {
		parts[i] = foldName(c)
	}
	return strings.Join(parts, "/")
}

// foldName is one path component as macOS (HFS+, APFS) or Windows would
// match it: lower case, without the code points HFS+ ignores (so
// ".g\u200cit" is ".git", git's CVE-2014-9390) and without trailing dots
// and spaces (NTFS).
func foldName(c string) string {
	c = strings.Map(func(r rune) rune {
		if ignorable(r) {
			return -1
		}
		return r
	}, c)
	c = strings.ToLower(c)
	if t := strings.TrimRight(c, ". "); t != "" && t != "." {
		c = t
	}
	return c
}

// ignorable are the code points HFS+ drops when it compares names.
func ignorable(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// resolvePrefix resolves the symlinks of the longest existing prefix of
// abs and appends the rest; a dangling final link is judged by its target.
func resolvePrefix(abs string) (string, error) {
	for range 40 {
		real, err := filepath.EvalSymlinks(abs)
		if err == nil {
			return real, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrInvalid) {
			return "", err
		}
		fi, lerr := os.Lstat(abs)
		if lerr != nil || fi.Mode()&fs.ModeSymlink == 0 {
			break
		}
		target, rerr := os.Readlink(abs)
		if rerr != nil {
			return "", rerr
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		abs = filepath.Clean(target)
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	rp, err := resolvePrefix(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(abs)), nil
}
