package skills

import (
	"os"
	"path/filepath"
)

// GeminiCommands are Gemini CLI's own custom commands, as Gemini CLI
// reads them: the user's ~/.gemini/commands (home is the user's home
// directory), then the project's <root>/.gemini/commands, which wins on
// the same name. The project's run commands through !{...}, so they are
// read only when trusted (the workspace is approved; the directory counts
// in its digest), and only from inside root: a link out of it is
// reported and not read. warnings name the file and the fix.
func GeminiCommands(home, root string, trusted bool) (list []Skill, warnings []string) {
	add := func(l []Skill, errs []error) {
		for _, s := range l {
			if i := indexOf(list, s.Name); i >= 0 {
				list[i] = s // the project's wins over the user's
			} else {
				list = append(list, s)
			}
		}
		for _, e := range errs {
			warnings = append(warnings, "Gemini CLI commands: "+e.Error())
		}
	}
	if home != "" {
		add(LoadCommands(filepath.Join(home, ".gemini", "commands"), ""))
	}
	if root == "" {
		return list, warnings
	}
	dir := filepath.Join(root, ".gemini", "commands")
	if _, err := os.Lstat(dir); err != nil {
		return list, warnings
	}
	if !trusted {
		warnings = append(warnings, dir+": workspace not approved: Gemini CLI commands held back (their !{...} run commands); run `ollm trust` to review and approve the workspace")
		return list, warnings
	}
	add(LoadProjectCommands(dir, root))
	return list, warnings
}

// AddMissing adds the skills whose name the registry does not have yet
// (ollm's own skills win over Gemini CLI's commands of the same name).
func (r *Registry) AddMissing(list []Skill) {
	for _, s := range list {
		if _, err := r.Get(s.Name); err == nil {
			continue
		}
		_ = r.Add(s)
	}
}

func indexOf(list []Skill, name string) int {
	for i, s := range list {
		if s.Name == name {
			return i
		}
	}
	return -1
}
