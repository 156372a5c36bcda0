package skills

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A SKILL.md in the Agent Skills format: a name with spaces, a folded
// description, braces in its prose and in code. The body is instructions:
// nothing is a placeholder, rendering never fails on them, and the free
// text after /name is passed as ARGUMENTS.
func TestAgentSkillProse(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "hookify", "SKILL.md"), `---
name: Writing Hookify Rules
description: >
  Use when the user asks for a hook rule;
  explains the rule format.
license: MIT
metadata:
  version: "1.2"
allowed-tools:
  - Read
  - Grep
---
# Writing rules

A rule is a JSON object such as {"event": "bash", "pattern": "rm -rf"}.
Use {placeholders} in messages only when the rule engine supports them,
and keep ${HOME} out of patterns.
`)
	r, errs := Base(nil, dir)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	s, err := r.Get("writing-hookify-rules")
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "Writing Hookify Rules" || s.Kind != KindInstructions {
		t.Fatalf("skill = %+v", s)
	}
	if s.Description != "Use when the user asks for a hook rule; explains the rule format." {
		t.Fatalf("description %q", s.Description)
	}
	if p := s.Placeholders(); len(p) != 0 {
		t.Fatalf("placeholders %v, want none: the body is prose", p)
	}
	out, err := r.Render("writing-hookify-rules", nil)
	if err != nil || out != s.Prompt {
		t.Fatalf("render without arguments = %q, %v", out, err)
	}
	out, _ = r.Render("writing-hookify-rules", map[string]string{Arguments: "block git push --force"})
	if !strings.HasSuffix(out, `{"event": "bash", "pattern": "rm -rf"}.
Use {placeholders} in messages only when the rule engine supports them,
and keep ${HOME} out of patterns.

ARGUMENTS: block git push --force`) {
		t.Fatalf("render with arguments:\n%s", out)
	}
}

// Placeholders only where a skill declares them; $ARGUMENTS takes the
// free text in place.
func TestAgentSkillDeclaredArguments(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "review", "SKILL.md"), "---\nname: review\ndescription: Review a file\narguments:\n  - file\n---\nReview {file}; braces in {prose} stay. Focus: $ARGUMENTS\n")
	r, _ := Base(nil, dir)
	s, _ := r.Get("review")
	if !reflect.DeepEqual(s.Placeholders(), []string{"file"}) {
		t.Fatalf("placeholders %v", s.Placeholders())
	}
	_, err := r.Render("review", nil)
	var me *MissingError
	if !errors.As(err, &me) || !reflect.DeepEqual(me.Names, []string{"file"}) {
		t.Fatalf("missing file: %v", err)
	}
	out, err := r.Render("review", map[string]string{"file": "a.go", Arguments: "errors"})
	if err != nil || out != "Review a.go; braces in {prose} stay. Focus: errors" {
		t.Fatalf("%q, %v", out, err)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"Writing Hookify Rules": "writing-hookify-rules", "git:commit": "git-commit",
		"pdf": "pdf", "  A -- B  ": "a-b", "v1.2_x": "v1.2_x"} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

type fakeInjector struct{ shell, files []string }

func (f *fakeInjector) Shell(_ context.Context, cmd string) (string, error) {
	f.shell = append(f.shell, cmd)
	if strings.HasPrefix(cmd, "refused") {
		return "", errors.New("the policy denies this call")
	}
	return "OUT(" + cmd + ")", nil
}

func (f *fakeInjector) File(p string) (string, error) {
	f.files = append(f.files, p)
	return "FILE(" + p + ")", nil
}

// A Gemini CLI command: @{file}, !{shell} with {{args}} quoted inside,
// {{args}} raw outside, balanced braces inside !{...}.
func TestCommandExpand(t *testing.T) {
	r := New()
	_ = r.Add(Skill{Name: "grep-code", Kind: KindCommand, Prompt: "Find `{{args}}`.\n@{docs/guide.md}\n!{grep -r {{args}} . | jq '{a: 1}'}"})
	_ = r.Add(Skill{Name: "changelog", Kind: KindCommand, Prompt: "Update the changelog."})
	inj := &fakeInjector{}
	out, err := r.Expand(context.Background(), "grep-code", map[string]string{Arguments: "It's x"}, inj)
	if err != nil {
		t.Fatal(err)
	}
	want := "Find `It's x`.\nFILE(docs/guide.md)\nOUT(grep -r 'It'\\''s x' . | jq '{a: 1}')"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	out, _ = r.Expand(context.Background(), "changelog", map[string]string{Arguments: "1.2.0 added x"}, inj)
	if out != "Update the changelog.\n\n/changelog 1.2.0 added x" {
		t.Fatalf("default argument handling: %q", out)
	}
	if _, err := r.Render("grep-code", nil); !errors.Is(err, ErrNeedsSession) {
		t.Fatalf("render without a session: %v", err)
	}
	_ = r.Add(Skill{Name: "bad", Kind: KindCommand, Prompt: "!{refused now}"})
	if _, err := r.Expand(context.Background(), "bad", nil, inj); err == nil || !strings.Contains(err.Error(), "the policy denies") {
		t.Fatalf("refused shell: %v", err)
	}
	// /git:commit finds the command registered as git-commit.
	_ = r.Add(Skill{Name: "git-commit", Kind: KindCommand, Prompt: "commit"})
	if s, err := r.Get("git:commit"); err != nil || s.Name != "git-commit" {
		t.Fatalf("git:commit = %+v, %v", s, err)
	}
}
