package store

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/mod/sumdb/dirhash"
)

func casWriteTree(t *testing.T, dir string, files map[string]os.FileMode) {
	t.Helper()
	for name, mode := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("content of "+name+"\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
}

func casCleanup(t *testing.T, dir string) {
	t.Cleanup(func() {
		_ = removeAll(dir)
	})
}

func TestHashDir(t *testing.T) {
	dir := t.TempDir()
	casWriteTree(t, dir, map[string]os.FileMode{"manifest.json": 0o644, "hooks/a.sh": 0o644})
	got, err := HashDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Without executables the hash is Go's own h1 over the same files.
	want, err := dirhash.HashDir(dir, "", dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("HashDir = %s, dirhash = %s", got, want)
	}
	// The executable bit is part of the hash.
	if err := os.Chmod(filepath.Join(dir, "hooks", "a.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	exec1, _ := HashDir(dir)
	if exec1 == got {
		t.Fatalf("chmod +x did not change the hash")
	}
	// Only the executable bit matters, not the other mode bits.
	if err := os.Chmod(filepath.Join(dir, "hooks", "a.sh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if exec2, _ := HashDir(dir); exec2 != exec1 {
		t.Fatalf("mode 0700 and 0755 hash differently")
	}
	// A link inside the tree is hashed as a link: by its target's text,
	// and never as the regular file holding that text.
	if err := os.Symlink("manifest.json", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	linked, err := HashDir(dir)
	if err != nil || linked == exec1 {
		t.Fatalf("HashDir with a link = %s, %v", linked, err)
	}
	_ = os.Remove(filepath.Join(dir, "link"))
	if err := os.WriteFile(filepath.Join(dir, "link"), []byte("manifest.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if plain, _ := HashDir(dir); plain == linked {
		t.Fatalf("a link hashes as the file holding its target")
	}
}

func TestCommitVerifiesThenRenames(t *testing.T) {
	cas := NewCAS(filepath.Join(t.TempDir(), "store"))
	casCleanup(t, cas.Dir)
	tmp, err := cas.NewTemp()
	if err != nil {
		t.Fatal(err)
	}
	casWriteTree(t, tmp.Tree(), map[string]os.FileMode{"manifest.json": 0o644, "bin/run": 0o755})
	want, _ := HashDir(tmp.Tree())

	// A wrong expected hash: a ChecksumError, and nothing in the store.
	bad := "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	_, got, err := cas.Commit(tmp, "x", bad)
	var ce *ChecksumError
	if !errors.As(err, &ce) || got != want || ce.Want != bad {
		t.Fatalf("Commit with a wrong hash: %v", err)
	}
	if entries, _ := cas.Entries(); len(entries) != 0 {
		t.Fatalf("store holds %v after a mismatch", entries)
	}
	if left, _ := os.ReadDir(cas.tmpRoot()); len(left) != 0 {
		t.Fatalf("temporary directory kept: %v", left)
	}

	tmp, _ = cas.NewTemp()
	casWriteTree(t, tmp.Tree(), map[string]os.FileMode{"manifest.json": 0o644, "bin/run": 0o755})
	dir, got, err := cas.Commit(tmp, "x", want)
	if err != nil || got != want {
		t.Fatalf("Commit: %v", err)
	}
	for p, mode := range map[string]os.FileMode{"": 0o555, "bin": 0o555, "bin/run": 0o555, "manifest.json": 0o444} {
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil || fi.Mode().Perm() != mode {
			t.Fatalf("%s: mode %v, want %v (%v)", p, fi.Mode().Perm(), mode, err)
		}
	}
	if _, ok, corrupt, _ := cas.Has(want, "x"); !ok || corrupt {
		t.Fatalf("Has = %v, %v", ok, corrupt)
	}
	removed, err := cas.GC(map[string]bool{}, false)
	if err != nil || len(removed) != 1 {
		t.Fatalf("GC removed %v, %v", removed, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("entry survived gc")
	}
}

// TestRecoverAfterSIGKILL kills a real process that is writing into the
// store's temporary area; Recover removes what it left, and a temporary
// directory held by a live process is left alone.
func TestRecoverAfterSIGKILL(t *testing.T) {
	if dir := os.Getenv("OLLM_TEST_CAS_CHILD"); dir != "" {
		cas := NewCAS(dir)
		tmp, err := cas.NewTemp()
		if err != nil {
			os.Exit(2)
		}
		_ = os.WriteFile(filepath.Join(tmp.Tree(), "half"), []byte("partial"), 0o644)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	cas := NewCAS(filepath.Join(t.TempDir(), "store"))
	casCleanup(t, cas.Dir)
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecoverAfterSIGKILL$")
	cmd.Env = append(os.Environ(), "OLLM_TEST_CAS_CHILD="+cas.Dir)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child: %v", err)
	}
	live, err := cas.NewTemp() // held by this process
	if err != nil {
		t.Fatal(err)
	}
	defer live.Discard()
	n, err := cas.Recover()
	if err != nil || n != 1 {
		t.Fatalf("Recover = %d, %v", n, err)
	}
	if _, err := os.Stat(live.Tree()); err != nil {
		t.Fatalf("Recover removed a live temporary directory: %v", err)
	}
	if entries, _ := cas.Entries(); len(entries) != 0 {
		t.Fatalf("store entries after a kill: %v", entries)
	}
}

// A process killed between taking a temporary directory's lock and
// creating the directory leaves the lock file alone; Recover removes it,
// and keeps the lock of a live one.
func TestRecoverRemovesAnOrphanLock(t *testing.T) {
	cas := NewCAS(filepath.Join(t.TempDir(), "store"))
	casCleanup(t, cas.Dir)
	live, err := cas.NewTemp()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Discard()
	orphan := filepath.Join(cas.tmpRoot(), "0123456789abcdef.lock")
	if err := os.WriteFile(orphan, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cas.Recover(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("orphan lock kept: %v", err)
	}
	if _, err := os.Stat(live.Dir + ".lock"); err != nil {
		t.Errorf("a live lock was removed: %v", err)
	}
}

func TestEntryName(t *testing.T) {
	n, err := EntryName("h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "guard")
	if err != nil || n != "0000000000000000000000000000000000000000000000000000000000000000-guard" {
		t.Fatalf("EntryName = %q, %v", n, err)
	}
	for _, bad := range [][2]string{{"h1:AAAA", "g"}, {"sha256:x", "g"}, {"h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "../x"}} {
		if _, err := EntryName(bad[0], bad[1]); err == nil {
			t.Errorf("EntryName(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

func TestGenerations(t *testing.T) {
	g := Generations{Dir: filepath.Join(t.TempDir(), "generations")}
	for i := 1; i <= 3; i++ {
		ws := "/ws/a"
		if i == 2 {
			ws = "/ws/b"
		}
		n, err := g.Write(&Generation{Workspace: ws, LockDigest: "d"})
		if err != nil || n != i {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	fi, err := os.Stat(g.file(1))
	if err != nil || fi.Mode().Perm() != PermGeneration {
		t.Fatalf("generation file mode: %v %v", fi, err)
	}
	for ws, want := range map[string]int{"/ws/a": 3, "/ws/b": 2} {
		p, ok, err := g.Current(ws)
		if err != nil || !ok || p.Generation != want || p.Rollback {
			t.Fatalf("Current(%s) = %+v %v %v", ws, p, ok, err)
		}
	}
	if err := g.SetCurrent("/ws/a", CurrentPointer{Generation: 1, Rollback: true}); err != nil {
		t.Fatal(err)
	}
	if p, _, _ := g.Current("/ws/a"); p.Generation != 1 || !p.Rollback {
		t.Fatalf("after rollback: %+v", p)
	}
	all, err := g.All()
	if err != nil || len(all) != 3 || all[2].Number != 3 {
		t.Fatalf("All = %d, %v", len(all), err)
	}
	if _, err := g.Read(9); err == nil {
		t.Fatalf("Read(9) succeeded")
	}
}
