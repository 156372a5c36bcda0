package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/tool"
	"golang.org/x/sys/unix"
)

// locFixture: ws (the workspace) with inside/, extra (an extra directory)
// and outside, all siblings; ws/link -> inside, ws/to-extra -> extra.
func locFixture(t *testing.T) (p *Paths, ws, extra, outside string) {
	t.Helper()
	base := t.TempDir()
	ws, extra, outside = filepath.Join(base, "ws"), filepath.Join(base, "extra"), filepath.Join(base, "outside")
	for _, d := range []string{ws + "/inside", extra, outside} {
		mustMkdir(t, d)
	}
	must(t, os.Symlink(filepath.Join(ws, "inside"), filepath.Join(ws, "link"))) // absolute, inside
	must(t, os.Symlink(extra, filepath.Join(ws, "to-extra")))
	p, err := NewPaths(ws, []string{extra})
	must(t, err)
	return p, ws, extra, outside
}

func TestLocateOpensByRealPathInTheHoldingDirectory(t *testing.T) {
	p, ws, extra, _ := locFixture(t)
	tests := []struct{ in, dir, rel string }{
		{"", ws, "."},
		{"a/b.txt", ws, "a/b.txt"},
		{"link/f.txt", ws, "inside/f.txt"},
		{"to-extra/notes.md", extra, "notes.md"},
		{extra + "/x", extra, "x"},
	}
	for _, tt := range tests {
		l, err := p.Locate(tt.in)
		if err != nil {
			t.Fatalf("Locate(%q): %v", tt.in, err)
		}
		if want := filepath.Join(ws, tt.in); !filepath.IsAbs(tt.in) && l.Abs != want {
			t.Errorf("Locate(%q).Abs = %q; want the path as named, %q", tt.in, l.Abs, want)
		}
		if l.dir != realDir(t, tt.dir) || l.rel != tt.rel {
			t.Errorf("Locate(%q) = %s + %s; want %s + %s", tt.in, l.dir, l.rel, tt.dir, tt.rel)
		}
	}
}

func realDir(t *testing.T, d string) string {
	r, err := filepath.EvalSymlinks(d)
	must(t, err)
	return r
}

// TestLocHoldsAfterSwap is the race made deterministic: the path is
// checked while link leads inside, then inside/ itself is replaced by a
// symlink to the outside before the file is used.
func TestLocHoldsAfterSwap(t *testing.T) {
	p, ws, _, outside := locFixture(t)
	os.WriteFile(filepath.Join(ws, "inside", "f.txt"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(outside, "f.txt"), []byte("OUTSIDE"), 0o644)
	l, err := p.Locate("link/f.txt")
	must(t, err)
	fresh, err := p.Locate("link/new/dir/g.txt") // a new file below a parent that goes too
	must(t, err)
	must(t, os.Rename(filepath.Join(ws, "inside"), filepath.Join(ws, "parked")))
	must(t, os.Symlink(outside, filepath.Join(ws, "inside")))

	if f, err := l.Open(); err == nil {
		f.Close()
		t.Fatal("Open followed the swapped directory out of the workspace")
	} else {
		wantOutside(t, err)
	}
	if _, err := l.Stat(); err == nil {
		t.Fatal("Stat followed the swapped directory out of the workspace")
	}
	wantOutside(t, l.WriteFile([]byte("x"), 0o644))
	if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(b) != "OUTSIDE" {
		t.Fatalf("the outside file was changed: %q", b)
	}
	assertDirHas(t, outside, "f.txt")

	// No mkdir, temporary file or rename outside for a new file either.
	wantOutside(t, fresh.WriteFile([]byte("x"), 0o644))
	assertDirHas(t, outside, "f.txt")
}

func wantOutside(t *testing.T, err error) {
	t.Helper()
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.ErrOutsideRoot || !strings.Contains(te.Message, "leads through a symlink") {
		t.Fatalf("error = %v; want an outside_workspace refusal naming the symlink", err)
	}
}

func TestLocWriteFileIsAtomicAndKeepsItsPlace(t *testing.T) {
	p, ws, extra, _ := locFixture(t)
	l, err := p.Locate("link/deep/er/f.txt")
	must(t, err)
	must(t, l.WriteFile([]byte("one"), 0o600))
	must(t, l.WriteFile([]byte("two"), 0o640))
	got := filepath.Join(ws, "inside", "deep", "er", "f.txt")
	if b, _ := os.ReadFile(got); string(b) != "two" {
		t.Fatalf("content %q", b)
	}
	if fi, _ := os.Stat(got); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v; want 0640 exactly, umask or not", fi.Mode().Perm())
	}
	assertDirHas(t, filepath.Dir(got), "f.txt") // no temporary file left

	// Through a symlink into an extra directory: the extra directory's root.
	l, err = p.Locate("to-extra/x.txt")
	must(t, err)
	must(t, l.WriteFile([]byte("x"), 0o644))
	assertDirHas(t, extra, "x.txt")

	// A symlinked file is written through: the link stays a link.
	os.WriteFile(filepath.Join(ws, "target.txt"), []byte("old"), 0o644)
	must(t, os.Symlink("target.txt", filepath.Join(ws, "alias.txt")))
	l, err = p.Locate("alias.txt")
	must(t, err)
	must(t, l.WriteFile([]byte("new"), 0o644))
	if fi, _ := os.Lstat(filepath.Join(ws, "alias.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("alias.txt was replaced by a file")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "target.txt")); string(b) != "new" {
		t.Fatalf("target.txt = %q", b)
	}
}

// TestOpenBeneath checks both the openat2 path and the component-wise
// fallback: no symlink is followed anywhere on the way, nothing climbs out.
func TestOpenBeneath(t *testing.T) {
	dir := t.TempDir()
	mustMkdir(t, filepath.Join(dir, "a", "b"))
	os.WriteFile(filepath.Join(dir, "a", "b", "f.txt"), []byte("f"), 0o644)
	must(t, os.Symlink("b", filepath.Join(dir, "a", "lb")))
	must(t, os.Symlink("f.txt", filepath.Join(dir, "a", "b", "lf")))
	d, err := os.Open(dir)
	must(t, err)
	defer d.Close()
	fd := int(d.Fd())
	for name, open := range map[string]func(int, string, int) (int, error){"openBeneath": openBeneath, "openEach": openEach} {
		for _, tt := range []struct {
			rel string
			ok  bool
		}{
			{".", true},
			{"a/b/f.txt", true},
			{"a/b", true},
			{"a/lb/f.txt", false},
			{"a/b/lf", false},
			{"a/lb", false},
			{"../x", false},
			{"a/../../x", false},
			{"missing/f", false},
		} {
			got, err := open(fd, tt.rel, unix.O_RDONLY)
			if err == nil {
				unix.Close(got)
			}
			if (err == nil) != tt.ok {
				t.Errorf("%s(%q): err = %v; want ok = %v", name, tt.rel, err, tt.ok)
			}
		}
	}
}

// A FIFO in the tree used to hang grep: open(2) waits for a writer.
func TestGrepSkipsFIFO(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{"a.txt": "needle\n"})
	must(t, unix.Mkfifo(filepath.Join(f.root, "pipe"), 0o644))
	done := make(chan tool.Result, 1)
	go func() { done <- f.call("grep", `{"pattern":"needle"}`) }()
	select {
	case res := <-done:
		if res.Error != nil || res.ForModel != "a.txt:1:needle\n" {
			t.Fatalf("grep = %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("grep hung on a FIFO")
	}
}
