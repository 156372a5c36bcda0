package runtime

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/ollm/ollm/store"
)

// sessionEnviron is environ with env (Claude Code settings' env, past the
// trust boundary) laid over it: the shell's environment before the
// allow-list, which envNames extends by env's names.
func sessionEnviron(environ func() []string, env map[string]string) func() []string {
	if len(env) == 0 {
		return environ
	}
	return func() []string {
		var out []string
		for _, kv := range environ() {
			k, _, _ := strings.Cut(kv, "=")
			if _, set := env[k]; !set {
				out = append(out, kv)
			}
		}
		for _, k := range envNames(env) {
			out = append(out, k+"="+env[k])
		}
		return out
	}
}

func envNames(env map[string]string) []string {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// SkillDirs are the folders of SKILL.md skills in precedence order
// (later wins on a name): Claude Code's user skills, ollm's, Claude Code's
// project skills, the workspace's .ollm/skills.
func SkillDirs(claudeDir, ollmSkills string, ws store.Workspace) []string {
	user := ""
	if claudeDir != "" {
		user = filepath.Join(claudeDir, "skills")
	}
	project := ""
	if ws.Root != "" {
		project = ws.ClaudeSkills()
	}
	return []string{user, ollmSkills, project, ws.Skills()}
}
