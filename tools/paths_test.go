package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/core/tool"
)

func TestPathConfinement(t *testing.T) {
	base := t.TempDir()
	root, extra, outside := filepath.Join(base, "ws"), filepath.Join(base, "extra"), filepath.Join(base, "outside")
	for _, d := range []string{root + "/sub", extra, outside} {
		mustMkdir(t, d)
	}
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o644)
	must(t, os.Symlink(outside, filepath.Join(root, "out-dir")))
	must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "out-file")))
	must(t, os.Symlink(filepath.Join(outside, "missing.txt"), filepath.Join(root, "dangling")))
	must(t, os.Symlink("sub", filepath.Join(root, "in-link")))
	must(t, os.Symlink("../../outside", filepath.Join(root, "sub", "rel-out")))
	p, err := NewPaths(root, []string{extra})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want string // "" = allowed
	}{
		{"a.txt", ""},
		{"sub/../a.txt", ""},
		{"new/dir/file.txt", ""},
		{"in-link/x.go", ""},
		{root + "/sub", ""},
		{extra + "/notes.md", ""},
		{"", ""},
		{"../outside/secret.txt", `climbs out of the workspace`},
		{"sub/../../outside", `climbs out of the workspace`},
		{"..", `climbs out of the workspace`},
		{"/etc/passwd", `absolute path /etc/passwd is outside`},
		{outside + "/secret.txt", `is outside the workspace`},
		{"out-dir/secret.txt", `leads through a symlink to ` + outside},
		{"out-dir/new.txt", `leads through a symlink`},
		{"out-file", `leads through a symlink`},
		{"dangling", `leads through a symlink`},
		{"sub/rel-out/secret.txt", `leads through a symlink`},
	}
	for _, tt := range tests {
		got, err := p.Resolve(tt.in)
		if tt.want == "" {
			if err != nil {
				t.Errorf("Resolve(%q): %v", tt.in, err)
			} else if !filepath.IsAbs(got) {
				t.Errorf("Resolve(%q) = %q, not absolute", tt.in, got)
			}
			continue
		}
		if err == nil {
			t.Errorf("Resolve(%q) = %q; want refusal %q", tt.in, got, tt.want)
			continue
		}
		buildError(t, err, tool.ErrOutsideRoot, tt.want)
	}
}

func TestFileToolsRefuseEscapes(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(filepath.Dir(f.root), "outside")
	mustMkdir(t, outside)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("top secret"), 0o644)
	must(t, os.Symlink(outside, filepath.Join(f.root, "link")))
	calls := []struct{ tool, params string }{
		{"read_file", `{"path":"../outside/secret.txt"}`},
		{"read_file", `{"path":"link/secret.txt"}`},
		{"write_file", `{"path":"link/new.txt","content":"x"}`},
		{"write_file", `{"path":"/tmp/ollm-escape.txt","content":"x"}`},
		{"edit_file", `{"path":"link/secret.txt","edits":[{"oldText":"top","newText":"x"}]}`},
		{"ls", `{"path":"link"}`},
		{"grep", `{"pattern":"secret","path":"../outside"}`},
		{"glob", `{"pattern":"*","path":"link"}`},
		{"shell", `{"command":"pwd","directory":"link"}`},
		{"read_many_files", `{"paths":["../outside/*.txt"]}`},
	}
	for _, c := range calls {
		f.fails(c.tool, c.params, tool.ErrOutsideRoot, "outside")
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("write_file wrote through a symlink out of the workspace")
	}
	// A symlink inside the tree is not followed by the walkers either.
	if out := f.ok("grep", `{"pattern":"top secret"}`); out != "No matches for \"top secret\" in ." {
		t.Fatalf("grep followed a symlink out of the workspace: %q", out)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
