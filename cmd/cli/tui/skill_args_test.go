package tui

import (
	"testing"

	"github.com/ollm/ollm/core/skills"
)

// /writing-hookify-rules block git push --force: the slug name is a skill
// command and the free text after it is the skill's arguments.
func TestSlashSkillFreeText(t *testing.T) {
	c, err := ParseCommand("/writing-hookify-rules block git push --force")
	if err != nil || c.Kind != CmdSkill || c.Name != "writing-hookify-rules" {
		t.Fatalf("%+v, %v", c, err)
	}
	v := SkillValues(c)
	if v[skills.Arguments] != "block git push --force" {
		t.Fatalf("values %v", v)
	}
	r := skills.New()
	_ = r.Add(skills.Skill{Name: "writing-hookify-rules", Kind: skills.KindInstructions, Prompt: "Rules are {\"event\": ...}."})
	out, err := r.Render(c.Name, v)
	if err != nil || out != "Rules are {\"event\": ...}.\n\nARGUMENTS: block git push --force" {
		t.Fatalf("%q, %v", out, err)
	}
	if c, err := ParseCommand("/git:commit fix the parser"); err != nil || c.Name != "git:commit" {
		t.Fatalf("Gemini's namespaced command: %+v, %v", c, err)
	}
}
