package skills

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ollm/ollm/schema"
)

// ClaudeCommands are Claude Code's own commands, as Claude Code reads
// them: the user's <claudeDir>/commands (~/.claude, or
// $CLAUDE_CONFIG_DIR), then the project's <root>/.claude/commands, which
// wins on the same name. The project's run commands through !`...`, so
// they are read only when trusted (the workspace is approved; the
// directory counts in its digest), and only from inside root: a link out
// of it is reported and not read. warnings name the file and the fix.
func ClaudeCommands(claudeDir, root string, trusted bool) (list []Skill, warnings []string) {
	add := func(l []Skill, errs []error) {
		for _, s := range l {
			if i := indexOf(list, s.Name); i >= 0 {
				list[i] = s
			} else {
				list = append(list, s)
			}
		}
		for _, e := range errs {
			warnings = append(warnings, "Claude Code commands: "+e.Error())
		}
	}
	if claudeDir != "" {
		add(LoadClaudeCommands(filepath.Join(claudeDir, "commands"), "", nil))
	}
	if root == "" {
		return list, warnings
	}
	dir := filepath.Join(root, ".claude", "commands")
	if _, err := os.Lstat(dir); err != nil {
		return list, warnings
	}
	if !trusted {
		warnings = append(warnings, dir+": workspace not approved: Claude Code commands held back (their !`...` run commands); run `ollm trust` to review and approve the workspace")
		return list, warnings
	}
	real, check, err := confined(dir, root)
	if err != nil {
		add(nil, []error{err})
		return list, warnings
	}
	add(LoadClaudeCommands(real, "", check))
	return list, warnings
}

// confined resolves dir, which must stay inside root, and returns a check
// that refuses a file under it leading out of root.
func confined(dir, root string) (string, func(string) error, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", nil, fmt.Errorf("commands directory %s: %w", dir, err)
	}
	if !inside(root, real) {
		return "", nil, fmt.Errorf("commands directory %s leads out of the workspace (to %s); its commands are not read: make it a directory inside %s", dir, real, root)
	}
	return real, func(p string) error {
		rp, err := filepath.EvalSymlinks(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if !inside(root, rp) {
			return fmt.Errorf("%s leads out of the workspace (to %s); not read: make it a file inside %s", p, rp, root)
		}
		return nil
	}, nil
}

// ClaudeDir is Claude Code's user directory: $CLAUDE_CONFIG_DIR when
// getenv gives it, else <home>/.claude ("" without a home).
func ClaudeDir(getenv func(string) string, home string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".claude")
}

// PluginCommands reads the Claude Code commands a plugin's import report
// lists (commands/**/*.md and the paths plugin.json names), as commands of
// extension: /plugin:name.
func PluginCommands(dir, extension string, rep *schema.ImportReport) ([]Skill, []error) {
	if rep == nil {
		return nil, nil
	}
	var out []Skill
	var errs []error
	for _, c := range rep.Commands {
		path := filepath.Join(dir, c.File)
		s, err := ReadClaudeCommand(filepath.Dir(path), path)
		if err != nil {
			errs = append(errs, fmt.Errorf("extension %s: %w", extension, err))
			continue
		}
		s.Name, s.Title, s.Extension, s.Source = c.Name, "", extension, SourceExtension
		out = append(out, s)
	}
	return out, errs
}
