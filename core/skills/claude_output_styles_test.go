package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadOutputStyle(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		file, text string
		want       OutputStyle
		err        string
	}{
		{file: "plain.md", text: "Be brief.\n", want: OutputStyle{Name: "plain", Body: "Be brief."}},
		{file: "named.md", text: "---\nname: Teacher Mode\ndescription: explains\nkeep-coding-instructions: true\n---\n\nExplain.\n",
			want: OutputStyle{Name: "Teacher Mode", Description: "explains", KeepCoding: true, Body: "Explain."}},
		{file: "bad.md", text: "---\nkeep-coding-instructions: yes please\n---\nX", err: `keep-coding-instructions: "yes please"; write true or false`},
		{file: "empty.md", text: "---\nname: e\n---\n\n", err: "output style e has no instructions"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.file)
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadOutputStyle(path)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.file, err, tt.err)
			}
			continue
		}
		tt.want.File = path
		if err != nil || got != tt.want {
			t.Errorf("%s: got %+v, %v; want %+v", tt.file, got, err, tt.want)
		}
	}
}

// The project's style wins over the user's of the same name, a plugin's
// is also <plugin>:<name>; a project's style is not read before trust,
// nor through a link out of the project.
func TestClaudeOutputStyles(t *testing.T) {
	user, root, plug, outside := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(user, "output-styles", "terse.md"), "user terse")
	write(filepath.Join(plug, "output-styles", "terse.md"), "plugin terse")
	write(filepath.Join(root, ".claude", "output-styles", "terse.md"), "project terse")
	write(filepath.Join(outside, "secret.md"), "outside")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, ".claude", "output-styles", "leak.md")); err != nil {
		t.Fatal(err)
	}
	plugins := map[string]string{"p": plug}

	list, warns := ClaudeOutputStyles(user, root, plugins, true)
	if s := FindOutputStyle(list, "TERSE"); s == nil || s.Body != "project terse" {
		t.Errorf("terse: %+v", s)
	}
	if s := FindOutputStyle(list, "p:terse"); s == nil || s.Body != "plugin terse" {
		t.Errorf("p:terse: %+v", s)
	}
	if FindOutputStyle(list, "leak") != nil || len(warns) != 1 || !strings.Contains(warns[0], "leak.md leads out of the workspace") {
		t.Errorf("leak: warnings %q", warns)
	}

	list, warns = ClaudeOutputStyles(user, root, plugins, false)
	if s := FindOutputStyle(list, "terse"); s == nil || s.Body != "plugin terse" {
		t.Errorf("untrusted terse: %+v", s)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "workspace not approved: Claude Code output styles held back") {
		t.Errorf("untrusted warnings %q", warns)
	}
}
