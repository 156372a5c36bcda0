package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Generations hold resolved profiles with settings values, env maps and
// headers: files readable by their owner only, in 0700 directories, also
// when the directory already existed with wider modes.
func TestGenerationModes(t *testing.T) {
	home := Home{Dir: t.TempDir()}
	for _, existing := range []bool{false, true} {
		g := Generations{Dir: home.Generations()}
		if existing {
			if err := os.Chmod(g.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		n, err := g.Write(&Generation{Workspace: "/ws", LockDigest: "d"})
		if err != nil {
			t.Fatal(err)
		}
		wantMode(t, g.Dir, 0o700)
		wantMode(t, g.file(n), PermGeneration)
		wantMode(t, g.currentPath(), PermPrivate)
	}
}

func TestPrivateDir(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")
	if err := PrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	wantMode(t, filepath.Join(root, "a"), 0o700)
	wantMode(t, dir, 0o700)
	if err := os.Chmod(dir, 0o775); err != nil {
		t.Fatal(err)
	}
	if err := PrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	wantMode(t, dir, 0o700)
}

func wantMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %#o, want %#o", path, got, want)
	}
}
