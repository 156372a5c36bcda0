package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A link that stays inside the tree is kept and hashed; one that is
// absolute, leads out (by its text, or through another link as the kernel
// follows it) or points to nothing is refused.
func TestHashDirLinks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		links [][2]string // path, target
		ok    bool
	}{
		{"file inside", [][2]string{{"skills/a/SKILL.md", "../../docs/SKILL.md"}}, true},
		{"folder inside", [][2]string{{"agents", "docs"}}, true},
		{"chain inside", [][2]string{{"l1", "l2"}, {"l2", "docs/SKILL.md"}}, true},
		{"absolute", [][2]string{{"passwd", "/etc/passwd"}}, false},
		{"out by its text", [][2]string{{"docs/up", "../../x"}}, false},
		{"out through a link", [][2]string{{"self", "."}, {"up", "self/.."}}, false},
		{"points to nothing", [][2]string{{"gone", "missing.md"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tree")
			casWriteTree(t, dir, map[string]os.FileMode{"docs/SKILL.md": 0o644, "run.sh": 0o755})
			for _, l := range tc.links {
				p := filepath.Join(dir, filepath.FromSlash(l[0]))
				_ = os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.Symlink(l[1], p); err != nil {
					t.Fatal(err)
				}
			}
			h, err := HashDir(dir)
			var le *LinkError
			if !tc.ok {
				if !errors.As(err, &le) {
					t.Fatalf("HashDir = %s, %v; want a LinkError", h, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// The verifier hashes it the same; in the store the link stays
			// a link and its target keeps its mode.
			cas := NewCAS(filepath.Join(t.TempDir(), "store"))
			casCleanup(t, cas.Dir)
			tmp, _ := cas.NewTemp()
			_ = os.Remove(tmp.Tree())
			if err := os.Rename(dir, tmp.Tree()); err != nil {
				t.Fatal(err)
			}
			got, hash, err := cas.Commit(tmp, "plug", h)
			if err != nil || hash != h {
				t.Fatalf("Commit = %s, %v", hash, err)
			}
			sums, err := hashTree(got)
			if err != nil || sums.h1() != h {
				t.Fatalf("verifier hash %v, %v; HashDir %s", sums, err, h)
			}
			if fi, err := os.Lstat(filepath.Join(got, tc.links[0][0])); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("link not kept: %v %v", fi, err)
			}
			if fi, _ := os.Stat(filepath.Join(got, "docs", "SKILL.md")); fi.Mode().Perm() != 0o444 {
				t.Fatalf("link target mode %v", fi.Mode())
			}
		})
	}
}
