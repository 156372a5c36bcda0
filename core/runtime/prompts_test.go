package runtime

import (
	"testing"

	"github.com/ollm/ollm/schema"
)

// An MCP prompt whose name has ':' (Gemini CLI's namespaced style) becomes
// a command under a valid name instead of being dropped.
func TestPromptSkillColonName(t *testing.T) {
	sk, ok := promptSkill([]string{"tools"}, schema.Skill{Name: "tools:git:commit", Description: "d", Prompt: "p"})
	if !ok || sk.Name != "git-commit" || sk.Extension != "tools" {
		t.Fatalf("%+v, %v", sk, ok)
	}
	sk, _ = promptSkill([]string{"tools"}, schema.Skill{Name: "tools:Review Code"})
	if sk.Name != "Review-Code" {
		t.Fatalf("%q", sk.Name)
	}
}
