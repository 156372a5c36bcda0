package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/tool"
)

// TestTrustFilesMarked: write_file and edit_file mark a write to a trust
// file in their confirmation (the gate asks a person about it), named
// directly, through a symlink to .git and in another case; an ordinary
// file is not marked.
func TestTrustFilesMarked(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{".git/config": "[core]\n", "src/a.go": "package a\n"})
	must(t, os.Symlink(".git", filepath.Join(f.root, "innocent")))
	for _, c := range []struct{ tool, params, want string }{
		{"write_file", `{"path":".git/hooks/pre-commit","content":"x"}`, ".git/hooks/pre-commit belongs to git"},
		{"write_file", `{"path":"innocent/hooks/pre-commit","content":"x"}`, ".git/hooks/pre-commit belongs to git"},
		{"write_file", `{"path":".Git/hooks/pre-commit","content":"x"}`, "belongs to git"},
		{"edit_file", `{"path":"innocent/config","edits":[{"oldText":"[core]","newText":"[core]\n\tfsmonitor = x"}]}`, ".git/config belongs to git"},
		{"write_file", `{"path":".mcp.json","content":"{}"}`, ".mcp.json names the MCP servers"},
		{"write_file", `{"path":".claude/settings.json","content":"{}"}`, "inside .claude"},
		{"write_file", `{"path":"ollm.lock","content":"{}"}`, "ollm.lock pins"},
		{"write_file", `{"path":"src/b.go","content":"package a\n"}`, ""},
		{"edit_file", `{"path":"src/a.go","edits":[{"oldText":"package a","newText":"package b"}]}`, ""},
	} {
		c2 := f.build(c.tool, c.params).Confirmation()
		if c.want == "" {
			if c2.Trust != "" {
				t.Errorf("%s %s: marked %q", c.tool, c.params, c2.Trust)
			}
			continue
		}
		if !strings.Contains(c2.Trust, c.want) || !strings.Contains(c2.Title, "a file that decides what runs: ") {
			t.Errorf("%s %s: title %q, trust %q; want %q", c.tool, c.params, c2.Title, c2.Trust, c.want)
		}
	}
}

// TestWriteNotRedirectedOntoTrustFile is the symlink race made
// deterministic: a write to a/config is checked while a/ is a plain
// directory (not a trust file, so no one is asked), then a/ is replaced
// by a link to .git before the write runs. The write follows no link: it
// fails, and .git/config is unchanged.
func TestWriteNotRedirectedOntoTrustFile(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{".git/config": "[core]\n", "a/config": "plain\n"})
	w := f.build("write_file", `{"path":"a/config","content":"[core]\n\tfsmonitor = touch pwned\n","overwrite":true}`)
	e := f.build("edit_file", `{"path":"a/config","edits":[{"oldText":"plain","newText":"[core]\n\tfsmonitor = touch pwned"}]}`)
	if w.Confirmation().Trust != "" || e.Confirmation().Trust != "" {
		t.Fatal("a/config marked as a trust file before the swap")
	}
	must(t, os.Rename(filepath.Join(f.root, "a"), filepath.Join(f.root, "parked")))
	must(t, os.Symlink(".git", filepath.Join(f.root, "a")))
	for name, inv := range map[string]tool.Invocation{"write_file": w, "edit_file": e} {
		res, err := inv.Execute(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Error == nil {
			t.Errorf("%s through the swapped link: %q", name, res.ForModel)
		}
	}
	if got := f.read(".git/config"); got != "[core]\n" {
		t.Fatalf(".git/config = %q", got)
	}
}
