package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// OutputStyle is a Claude Code output style: a Markdown file whose body
// goes into the system prompt, replacing Claude Code's coding
// instructions unless keep-coding-instructions is true.
type OutputStyle struct {
	Name        string // front matter name, else the file's name without .md
	Description string
	Body        string
	KeepCoding  bool   // keep-coding-instructions
	File        string // where it was read
	Extension   string // the plugin it comes with, "" for the user's and the project's
}

// OutputStylesDir is where a project, the user (under ~/.claude) and a
// plugin keep their output styles.
const OutputStylesDir = "output-styles"

// ClaudeOutputStyles reads the output styles Claude Code offers: the
// user's <claudeDir>/output-styles, each plugin's output-styles/
// (plugins maps an extension's name to its folder), then the project's
// <root>/.claude/output-styles, in that order (FindOutputStyle takes the
// last of a name: the project's win). The
// project's change the system prompt, so they are read only when trusted
// (the workspace is approved; the folder counts in its digest), and only
// from inside root. warnings name the file and the fix.
func ClaudeOutputStyles(claudeDir, root string, plugins map[string]string, trusted bool) (list []OutputStyle, warnings []string) {
	add := func(dir, extension string, check func(string) error) {
		styles, errs := readOutputStyles(dir, extension, check)
		list = append(list, styles...)
		for _, e := range errs {
			warnings = append(warnings, "Claude Code output styles: "+e.Error())
		}
	}
	if claudeDir != "" {
		add(filepath.Join(claudeDir, OutputStylesDir), "", nil)
	}
	names := make([]string, 0, len(plugins))
	for n := range plugins {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		add(filepath.Join(plugins[n], OutputStylesDir), n, nil)
	}
	if root == "" {
		return list, warnings
	}
	dir := filepath.Join(root, ".claude", OutputStylesDir)
	if _, err := os.Lstat(dir); err != nil {
		return list, warnings
	}
	if !trusted {
		warnings = append(warnings, dir+": workspace not approved: Claude Code output styles held back (they change the system prompt); run `ollm trust` to review and approve the workspace")
		return list, warnings
	}
	real, check, err := confined(dir, root)
	if err != nil {
		warnings = append(warnings, "Claude Code output styles: "+strings.Replace(err.Error(), "commands", "output styles", -1))
		return list, warnings
	}
	add(real, "", check)
	return list, warnings
}

// FindOutputStyle is the style called name (case does not matter, as
// Claude Code's /config shows "Explanatory" for "explanatory"); a
// plugin's style is also "<plugin>:<name>". nil when there is none.
func FindOutputStyle(list []OutputStyle, name string) *OutputStyle {
	for i := len(list) - 1; i >= 0; i-- {
		s := list[i]
		if strings.EqualFold(s.Name, name) || (s.Extension != "" && strings.EqualFold(s.Extension+":"+s.Name, name)) {
			return &list[i]
		}
	}
	return nil
}

// readOutputStyles reads dir/*.md (a missing dir is no style).
func readOutputStyles(dir, extension string, check func(string) error) ([]OutputStyle, []error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(files) == 0 {
		return nil, nil
	}
	sort.Strings(files)
	var out []OutputStyle
	var errs []error
	for _, f := range files {
		if check != nil {
			if err := check(f); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		s, err := ReadOutputStyle(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.Extension = extension
		out = append(out, s)
	}
	return out, errs
}

// ReadOutputStyle reads one style file: optional front matter (name,
// description, keep-coding-instructions), then the instructions.
func ReadOutputStyle(path string) (OutputStyle, error) {
	data, err := readCapped(path)
	if err != nil {
		return OutputStyle{}, err
	}
	text := string(data)
	s := OutputStyle{Name: strings.TrimSuffix(filepath.Base(path), ".md"), File: path}
	if strings.HasPrefix(strings.TrimPrefix(text, "\ufeff"), "---") {
		meta, body, err := frontMatter(text)
		if err != nil {
			return OutputStyle{}, fmt.Errorf("%s: %w", path, err)
		}
		if n := strings.TrimSpace(meta["name"]); n != "" {
			s.Name = n
		}
		s.Description = meta["description"]
		switch v := strings.ToLower(strings.TrimSpace(meta["keep-coding-instructions"])); v {
		case "", "false":
		case "true":
			s.KeepCoding = true
		default:
			return OutputStyle{}, fmt.Errorf("%s: keep-coding-instructions: %q; write true or false", path, v)
		}
		text = body
	}
	if s.Body = strings.TrimSpace(text); s.Body == "" {
		return OutputStyle{}, fmt.Errorf("%s: output style %s has no instructions; write them below the front matter", path, s.Name)
	}
	return s, nil
}
