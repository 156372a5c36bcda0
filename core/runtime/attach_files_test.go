package runtime

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/schema"
)

func TestFileMentions(t *testing.T) {
	for _, c := range []struct {
		prompt string
		want   []string
	}{
		{"@main.go", []string{"main.go"}},
		{"explain @src/a.go, then @main.go.", []string{"src/a.go", "main.go"}},
		{"(@a.go) twice @a.go", []string{"a.go"}},
		{"mail me@host.com or @ev:demo://x", nil},
		{"@ alone", nil},
	} {
		if got := FileMentions(c.prompt); !reflect.DeepEqual(got, c.want) {
			t.Errorf("FileMentions(%q) = %q, want %q", c.prompt, got, c.want)
		}
	}
}

// What a prompt carries: a workspace file's contents; never a file
// outside (by "..", by an absolute path, by a symlink), never one a deny
// rule keeps from read_file; a large file cut with a note.
func TestAttachFiles(t *testing.T) {
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "ws")
	write := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "notes.txt"), "THE NOTES")
	write(filepath.Join(ws, "secrets", "key.pem"), "PRIVATE KEY")
	write(filepath.Join(ws, "big.txt"), strings.Repeat("é", MaxAttachBytes)) // 2 bytes each
	write(filepath.Join(ws, "bin.dat"), "a\x00b")
	write(filepath.Join(tmp, "outside.txt"), "OUTSIDE")
	if err := os.Symlink(filepath.Join(tmp, "outside.txt"), filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Compile(schema.Policy{DefaultAction: "allow", Rules: []schema.PolicyRule{
		{Name: "no-secrets", Tool: "read_file", Action: "deny", When: &schema.Condition{Arg: "path", Glob: "secrets/**"}},
	}}, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prompt := "read @notes.txt @secrets/key.pem @../outside.txt @" + filepath.Join(tmp, "outside.txt") + " @link.txt @big.txt @bin.dat @missing.txt"
	got, notes := AttachFiles(ws, pol, prompt)
	if !strings.HasPrefix(got, prompt+"\n\n--- Content from referenced files ---\nContent from @notes.txt:\nTHE NOTES\n") {
		t.Errorf("prompt:\n%s", got)
	}
	for _, bad := range []string{"PRIVATE KEY", "OUTSIDE", "a\x00b"} {
		if strings.Contains(got, bad) {
			t.Errorf("the prompt carries %q", bad)
		}
	}
	if !strings.Contains(got, "[cut: the first 32768 bytes of 65536; read_file reads the rest]") {
		t.Errorf("big.txt not cut:\n%.300s", got[len(prompt):])
	}
	var lines []string
	for _, n := range notes {
		lines = append(lines, n.String())
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{
		"attached @notes.txt (9 bytes)",
		"@secrets/key.pem not attached: the policy does not let read_file read it",
		"@../outside.txt not attached: outside the workspace",
		"@link.txt not attached: outside the workspace",
		"attached @big.txt: its first 32768 bytes of 65536 (cut",
		"@bin.dat not attached: a binary file",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("notes lack %q:\n%s", want, text)
		}
	}
	if len(notes) != 7 || strings.Contains(text, "missing") {
		t.Errorf("%d notes:\n%s", len(notes), text)
	}
}
