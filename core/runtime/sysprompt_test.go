package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/ext"
	"github.com/ollm/ollm/core/skills"
)

func TestSystemPrompt(t *testing.T) {
	root, extDir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Run `make test` before you finish.\n"), 0o644)
	os.WriteFile(filepath.Join(extDir, "GEMINI.md"), []byte(strings.Repeat("x", maxContextFile+10)), 0o644)
	got, notes := systemPrompt(promptParts{Root: root, Exts: []ext.Info{
		{Name: "gem", Dir: extDir, Context: "GEMINI.md", Active: true},
		{Name: "off", Dir: extDir, Context: "GEMINI.md", Active: false},
		{Name: "lost", Dir: extDir, Context: "MISSING.md", Active: true},
	}, Skills: []skills.Entry{{Name: "pdf", Skill: skills.Skill{Description: "Fill PDF\n  forms"}}}})
	for _, want := range []string{"working in the project at " + root, "## Project instructions (AGENTS.md)", "Run `make test`",
		"## Context from extension gem (GEMINI.md)", "[GEMINI.md cut at 64 KiB]",
		"## Skills", "call activate_skill with its name", "- pdf: Fill PDF forms"} {
		if !strings.Contains(got, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if strings.Contains(got, "extension off") {
		t.Error("an inactive extension's context reached the prompt")
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "extension lost: context file "+filepath.Join(extDir, "MISSING.md")+" (contextFileName) is missing") {
		t.Errorf("notes %q: the missing context file is not reported", notes)
	}
}

// GEMINI.md and CLAUDE.md are read as Gemini CLI and Claude Code read
// them: from the repository's top down to the workspace; a CLAUDE.md
// that is AGENTS.md (a link, or the same text) once; names configurable.
func TestSystemPromptContextFiles(t *testing.T) {
	repo := t.TempDir()
	ws := filepath.Join(repo, "svc", "api")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(repo, "GEMINI.md"), []byte("repo-wide gemini rules"), 0o644)
	os.WriteFile(filepath.Join(repo, "svc", "CLAUDE.md"), []byte("svc claude rules"), 0o644)
	os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("api agent rules"), 0o644)
	os.Symlink("AGENTS.md", filepath.Join(ws, "CLAUDE.md"))
	os.WriteFile(filepath.Join(ws, "NOTES.md"), []byte("custom notes"), 0o644)
	got, _ := systemPrompt(promptParts{Root: ws})
	i, j, k := strings.Index(got, "repo-wide gemini rules"), strings.Index(got, "svc claude rules"), strings.Index(got, "api agent rules")
	if i < 0 || j < i || k < j {
		t.Fatalf("want the repository's file, then svc's, then the workspace's:\n%s", got)
	}
	if strings.Count(got, "api agent rules") != 1 {
		t.Errorf("CLAUDE.md linked to AGENTS.md is read twice:\n%s", got)
	}
	if !strings.Contains(got, "## Project instructions ("+filepath.Join(repo, "GEMINI.md")+")") {
		t.Errorf("a file above the workspace is not named by its path:\n%s", got)
	}
	if strings.Contains(got, "custom notes") {
		t.Error("NOTES.md is read without being configured")
	}
	got, _ = systemPrompt(promptParts{Root: ws, ContextFiles: []string{"NOTES.md"}})
	if !strings.Contains(got, "custom notes") || strings.Contains(got, "gemini rules") {
		t.Errorf("agent.contextFiles [NOTES.md]:\n%s", got)
	}
}

// The user's ~/.gemini/GEMINI.md and ~/.claude/CLAUDE.md come first, as
// in Gemini CLI and Claude Code, only for the names configured;
// $CLAUDE_CONFIG_DIR moves Claude's; their imports stay in their folder.
func TestSystemPromptUserFiles(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "GEMINI.md"), []byte("user gemini rules\n@./style.md\n@../.ssh/id_rsa"), 0o644)
	os.WriteFile(filepath.Join(home, ".gemini", "style.md"), []byte("user style"), 0o644)
	os.WriteFile(filepath.Join(home, ".claude", "CLAUDE.md"), []byte("user claude rules"), 0o644)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE KEY"), 0o600)
	os.WriteFile(filepath.Join(ws, "GEMINI.md"), []byte("project rules"), 0o644)
	env := func(string) string { return "" }
	got, notes := systemPrompt(promptParts{Root: ws, UserFiles: userContextFiles(nil, nil, home, env)})
	i, j, k := strings.Index(got, "user gemini rules"), strings.Index(got, "user claude rules"), strings.Index(got, "project rules")
	if i < 0 || j < i || k < j || !strings.Contains(got, "user style") {
		t.Fatalf("want the user's files, then the project's:\n%s", got)
	}
	if strings.Contains(got, "PRIVATE KEY") || len(notes) != 1 || !strings.Contains(notes[0], "GEMINI.md:3: import @../.ssh/id_rsa refused") {
		t.Errorf("notes %q", notes)
	}
	if f := userContextFiles([]string{"AGENTS.md"}, nil, home, env); len(f) != 0 {
		t.Errorf("AGENTS.md alone reads %v", f)
	}
	cfg := func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return "/etc/claude"
		}
		return ""
	}
	if f := userContextFiles([]string{"CLAUDE.md"}, nil, home, cfg); len(f) != 1 || f[0] != "/etc/claude/CLAUDE.md" {
		t.Errorf("CLAUDE_CONFIG_DIR: %v", f)
	}
}

// Claude Code's other project files: .claude/CLAUDE.md beside CLAUDE.md
// and CLAUDE.local.md are read by default; a .claude directory linked out
// of the project is refused, though the file at its end is a plain one.
func TestSystemPromptClaudeLocations(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, "CLAUDE.md"), "root claude")
	write(t, filepath.Join(ws, ".claude", "CLAUDE.md"), "dot claude")
	write(t, filepath.Join(ws, "CLAUDE.local.md"), "my local notes")
	got, notes := systemPrompt(promptParts{Root: ws})
	for _, want := range []string{"(CLAUDE.md)\n\nroot claude", "(.claude/CLAUDE.md)\n\ndot claude", "(CLAUDE.local.md)\n\nmy local notes"} {
		if !strings.Contains(got, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, got)
		}
	}
	if len(notes) != 0 {
		t.Errorf("notes %q", notes)
	}

	ws2 := t.TempDir()
	write(t, filepath.Join(outside, "CLAUDE.md"), "PRIVATE")
	if err := os.Symlink(outside, filepath.Join(ws2, ".claude")); err != nil {
		t.Fatal(err)
	}
	got, notes = systemPrompt(promptParts{Root: ws2})
	if strings.Contains(got, "PRIVATE") || len(notes) != 1 || !strings.Contains(notes[0], filepath.Join(ws2, ".claude", "CLAUDE.md")+" refused") {
		t.Errorf("linked .claude: notes %q, prompt:\n%s", notes, got)
	}
}

// A Gemini CLI extension whose manifest names no contextFileName gives
// the model its GEMINI.md, as Gemini CLI does; an ollm extension without
// one gives nothing.
func TestSystemPromptGeminiDefaultContext(t *testing.T) {
	gem, own := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(gem, "GEMINI.md"), []byte("gemini extension rules"), 0o644)
	os.WriteFile(filepath.Join(own, "GEMINI.md"), []byte("not asked for"), 0o644)
	got, notes := systemPrompt(promptParts{Root: t.TempDir(), Exts: []ext.Info{
		{Name: "gem", Dir: gem, Format: "gemini", Active: true},
		{Name: "own", Dir: own, Format: "ollm", Active: true},
	}})
	if !strings.Contains(got, "## Context from extension gem (GEMINI.md)\n\ngemini extension rules") {
		t.Errorf("the Gemini extension's GEMINI.md is not in the prompt:\n%s", got)
	}
	if strings.Contains(got, "not asked for") || len(notes) != 0 {
		t.Errorf("an ollm extension's GEMINI.md was read, or notes %q", notes)
	}
}
