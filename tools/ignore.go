package tools

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignorer holds the gitignore patterns in force in one directory: git's
// global excludes, .git/info/exclude, then every .gitignore from the top of
// the repository down. Paths are matched as components relative to top.
// An ignorer is immutable; child returns a new one for a subdirectory.
type ignorer struct {
	top      string
	patterns []gitignore.Pattern
}

// newIgnorer prepares matching for a walk that starts at base: it finds the
// repository top (the nearest ancestor with .git, else fallbackTop), loads
// the global and repository excludes and the .gitignore files from top down
// to base's parent. getenv supplies HOME and XDG_CONFIG_HOME.
func newIgnorer(base, fallbackTop string, getenv func(string) string) *ignorer {
	top := findRepoTop(base)
	if top == "" {
		top = fallbackTop
	}
	ig := &ignorer{top: top}
	ig.patterns = append(ig.patterns, globalExcludes(getenv)...)
	ig.patterns = append(ig.patterns, ReadIgnoreFile(filepath.Join(top, ".git", "info", "exclude"), nil)...)
	rel, err := filepath.Rel(top, base)
	if err != nil || strings.HasPrefix(rel, "..") {
		return &ignorer{top: base, patterns: ig.patterns}
	}
	dir := top
	var parts []string
	for _, part := range splitRel(rel) {
		ig = ig.child(dir, parts)
		dir = filepath.Join(dir, part)
		parts = append(parts, part)
	}
	return ig
}

func findRepoTop(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

func splitRel(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// child returns the ignorer for directory dir (parts: dir relative to top),
// adding dir's .gitignore when it has one.
func (ig *ignorer) child(dir string, parts []string) *ignorer {
	ps := ReadIgnoreFile(filepath.Join(dir, ".gitignore"), parts)
	if len(ps) == 0 {
		return ig
	}
	all := make([]gitignore.Pattern, 0, len(ig.patterns)+len(ps))
	all = append(append(all, ig.patterns...), ps...)
	return &ignorer{top: ig.top, patterns: all}
}

// ignored reports whether the path (components relative to top) is ignored.
// Later patterns win, as in git.
func (ig *ignorer) ignored(parts []string, isDir bool) bool {
	for i := len(ig.patterns) - 1; i >= 0; i-- {
		switch ig.patterns[i].Match(parts, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

// ReadIgnoreFile parses a gitignore file with its patterns relative to
// domain; a missing file, or one over 1 MiB, has no patterns.
func ReadIgnoreFile(path string, domain []string) []gitignore.Pattern {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 1<<20 {
		return nil
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// globalExcludes reads core.excludesFile from ~/.gitconfig or
// $XDG_CONFIG_HOME/git/config, falling back to git's default
// $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore).
func globalExcludes(getenv func(string) string) []gitignore.Pattern {
	home := getenv("HOME")
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var file string
	for _, cfg := range []string{filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")} {
		if f := excludesFileFrom(cfg); f != "" {
			file = f // later files win, as in git
		}
	}
	if file == "" && xdg != "" {
		file = filepath.Join(xdg, "git", "ignore")
	}
	if strings.HasPrefix(file, "~/") {
		file = filepath.Join(home, file[2:])
	}
	if file == "" {
		return nil
	}
	return ReadIgnoreFile(file, nil)
}

func excludesFileFrom(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	cfg := config.New()
	if err := config.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return ""
	}
	return cfg.Section("core").Options.Get("excludesfile")
}
