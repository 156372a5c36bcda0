package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Imports read as an attacker would write them: a traversal, a link out
// of the project, an absolute path, a cycle, a chain past the depth
// limit; only files of the project are read.
func TestImportsConfined(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "project")
	write := func(rel, text string) {
		p := filepath.Join(base, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("secret.txt", "TOP SECRET")
	write("project/docs/style.md", "Use tabs.\nSee @../shared.md for more.")
	write("project/shared.md", "Shared rule.")
	write("project/a.md", "A then @./b.md")
	write("project/b.md", "B then @./a.md")
	for i := 0; i < 7; i++ {
		write("project/deep/"+string(rune('0'+i))+".md", "level "+string(rune('0'+i))+" @./"+string(rune('1'+i))+".md")
	}
	os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(root, "link.md"))
	os.Symlink(base, filepath.Join(root, "up"))
	ctx := strings.Join([]string{
		"# Rules",
		"@./docs/style.md",
		"@../secret.txt",
		"@" + filepath.Join(base, "secret.txt"),
		"@link.md",
		"@up/secret.txt",
		"Quoted: `@./docs/style.md` and mail me@example.com, ask @someone.",
		"@./a.md",
		"@deep/0.md",
		"@notes/missing.md",
	}, "\n")
	im := Imports{Boundary: root}
	got := im.Expand(filepath.Join(root, "CLAUDE.md"), ctx)
	if strings.Contains(got, "TOP SECRET") {
		t.Fatalf("a file outside the project was imported:\n%s", got)
	}
	for _, want := range []string{"Use tabs.", "Shared rule.", "`@./docs/style.md`", "me@example.com", "@someone.",
		"[import @../secret.txt refused: outside the project]", "[import @link.md refused: outside the project]",
		"[import @up/secret.txt refused: outside the project]", "A then", "B then @./a.md", "level 4", "@notes/missing.md"} {
		if !strings.Contains(got, want) {
			t.Errorf("expanded text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "level 5") {
		t.Errorf("imports went past %d levels:\n%s", MaxImportDepth, got)
	}
	notes := strings.Join(im.Notes, "\n")
	for _, want := range []string{
		"CLAUDE.md:3: import @../secret.txt refused: it is outside " + root,
		"CLAUDE.md:5: import @link.md refused",
		"CLAUDE.md:10: import @notes/missing.md: no such file",
		"import @./5.md not read: more than 5 nested imports",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}
