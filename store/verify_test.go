package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// installEntry puts a real entry into the store the way apply does (temp
// directory, hash, rename, read-only) and returns its pin and directory.
func installEntry(t testing.TB, cas *CAS, name string, files map[string]string) (Pin, string) {
	t.Helper()
	tmp, err := cas.NewTemp()
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		p := filepath.Join(tmp.Tree(), filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(rel, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	dir, hash, err := cas.Commit(tmp, name, "")
	if err != nil {
		t.Fatal(err)
	}
	return Pin{Name: name, Hash: hash}, dir
}

// laterVerifier is a verifier in a later process: the entry's last change
// is older than verifyMargin, so its fingerprint may be cached.
func laterVerifier(cas *CAS, home string) *Verifier {
	v := NewVerifier(cas, filepath.Join(home, "state", "store-verify.key"))
	v.Now = func() time.Time { return time.Now().Add(time.Hour) }
	return v
}

// writable runs fn with dir and file made writable, as an attacker who
// owns the files would, then puts the read-only modes back.
func writable(t *testing.T, dir, file string, fn func()) {
	t.Helper()
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dir, 0o755)
	_ = os.Chmod(file, 0o644)
	fn()
	_ = os.Chmod(file, fi.Mode().Perm())
	_ = os.Chmod(dir, 0o555)
}

var guardFiles = map[string]string{
	"manifest.json":  `{"name": "guard", "version": "1.0.0"}` + "\n",
	"hooks/check.sh": "#!/bin/sh\necho ok\n",
	"lib/util.js":    "module.exports = 1\n",
	"README.md":      "# guard\n",
}

func TestVerifyDetectsTampering(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, dir string)
		diff   string // "" when the entry still verifies
	}{
		{"same size, mtime put back", func(t *testing.T, dir string) {
			f := filepath.Join(dir, "hooks", "check.sh")
			fi, _ := os.Stat(f)
			writable(t, dir, f, func() {
				_ = os.Chmod(filepath.Join(dir, "hooks"), 0o755)
				if err := os.WriteFile(f, []byte("#!/bin/sh\necho no\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				_ = os.Chtimes(f, fi.ModTime(), fi.ModTime())
				_ = os.Chmod(filepath.Join(dir, "hooks"), 0o555)
			})
			if after, _ := os.Stat(f); after.Size() != fi.Size() || !after.ModTime().Equal(fi.ModTime()) {
				t.Fatalf("the tamper changed size or mtime")
			}
		}, "changed hooks/check.sh"},
		{"file added", func(t *testing.T, dir string) {
			writable(t, dir, filepath.Join(dir, "README.md"), func() {
				_ = os.WriteFile(filepath.Join(dir, "extra.sh"), []byte("evil\n"), 0o755)
			})
		}, "added extra.sh"},
		{"file removed", func(t *testing.T, dir string) {
			writable(t, dir, filepath.Join(dir, "README.md"), func() {
				_ = os.Remove(filepath.Join(dir, "README.md"))
			})
		}, "removed README.md"},
		{"chmod +x", func(t *testing.T, dir string) {
			_ = os.Chmod(filepath.Join(dir, "lib", "util.js"), 0o555)
		}, "executable bit of lib/util.js changed"},
		{"symlink replaces a file", func(t *testing.T, dir string) {
			writable(t, dir, filepath.Join(dir, "README.md"), func() {
				_ = os.Remove(filepath.Join(dir, "README.md"))
				_ = os.Symlink("/etc/passwd", filepath.Join(dir, "README.md"))
			})
		}, "README.md is a symbolic link"},
		{"chmod u+w only: same content", func(t *testing.T, dir string) {
			_ = os.Chmod(filepath.Join(dir, "README.md"), 0o644)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			cas := NewCAS(filepath.Join(root, "store"))
			casCleanup(t, cas.Dir)
			pin, dir := installEntry(t, cas, "guard", guardFiles)
			v := laterVerifier(cas, root)
			if dirs, err := v.Verify([]Pin{pin}); err != nil || dirs[0] != dir || v.rehashed != 1 {
				t.Fatalf("first Verify = %v, %v (rehashed %d)", dirs, err, v.rehashed)
			}
			// A later process trusts the cached fingerprint: no re-hash.
			v = laterVerifier(cas, root)
			if _, err := v.Verify([]Pin{pin}); err != nil || v.rehashed != 0 {
				t.Fatalf("warm Verify = %v (rehashed %d)", err, v.rehashed)
			}
			tc.tamper(t, dir)
			v = laterVerifier(cas, root)
			dirs, err := v.Verify([]Pin{pin})
			if tc.diff == "" {
				if err != nil || dirs[0] != dir || v.rehashed != 1 {
					t.Fatalf("Verify = %v, %v (rehashed %d)", dirs, err, v.rehashed)
				}
				return
			}
			var te *TamperedError
			if !errors.As(err, &te) || te.Name != "guard" || te.Dir != dir || te.Want != pin.Hash || !strings.Contains(te.Diff, tc.diff) {
				t.Fatalf("err = %#v, want TamperedError with %q", err, tc.diff)
			}
			for _, s := range []string{"SECURITY ERROR", "ollm profile apply", dir, pin.Hash} {
				if !strings.Contains(err.Error(), s) {
					t.Fatalf("message lacks %q:\n%v", s, err)
				}
			}
			if dirs != nil {
				t.Fatalf("dirs returned with the error: %v", dirs)
			}
		})
	}
}

// The cache lives in the store, where an attacker who edits an entry can
// write too: a record only counts with the key kept outside the store.
func TestVerifyForgedCacheIsRejected(t *testing.T) {
	root := t.TempDir()
	cas := NewCAS(filepath.Join(root, "store"))
	casCleanup(t, cas.Dir)
	pin, dir := installEntry(t, cas, "guard", guardFiles)
	if _, err := laterVerifier(cas, root).Verify([]Pin{pin}); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "README.md")
	writable(t, dir, f, func() { _ = os.WriteFile(f, []byte("# evil\n"), 0o644) })
	// The forger computes the record of the tampered tree with a key of
	// its own (it cannot read the real one).
	forger := &Verifier{CAS: cas, key: bytes.Repeat([]byte{7}, 32)}
	fi, _ := os.Lstat(dir)
	fp, err := fingerprint(dir, fi)
	if err != nil {
		t.Fatal(err)
	}
	entry := filepath.Base(dir)
	forged := map[string]verifyRecord{entry: {Hash: pin.Hash, MAC: forger.mac(entry, pin.Hash, fp.sum), Paths: fp.paths}}
	if err := WriteFile(filepath.Join(cas.Dir, ".verified"), formatCache(forged), PermPrivate); err != nil {
		t.Fatal(err)
	}
	var te *TamperedError
	if _, err := laterVerifier(cas, root).Verify([]Pin{pin}); !errors.As(err, &te) || te.Diff != "changed README.md" {
		t.Fatalf("err = %v", err)
	}
	// Without the key (unreadable), every use re-hashes: still detected.
	v := laterVerifier(cas, root)
	v.Key = filepath.Join(root, "nowhere", "\x00")
	if _, err := v.Verify([]Pin{pin}); !errors.As(err, &te) {
		t.Fatalf("err = %v", err)
	}
}

func TestVerifyCacheFiles(t *testing.T) {
	root := t.TempDir()
	cas := NewCAS(filepath.Join(root, "store"))
	casCleanup(t, cas.Dir)
	pin, _ := installEntry(t, cas, "guard", guardFiles)
	absent := Pin{Name: "gone", Hash: "h1:" + strings.Repeat("A", 43) + "="}
	v := laterVerifier(cas, root)
	dirs, err := v.Verify([]Pin{absent, pin})
	if err != nil || dirs[0] != "" || dirs[1] == "" {
		t.Fatalf("Verify = %v, %v", dirs, err)
	}
	key, _ := EntryName(pin.Hash, pin.Name)
	for _, p := range []string{v.Cache, v.Key, filepath.Join(v.Hints, key)} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", p, fi, err)
		}
	}
	if strings.HasPrefix(v.Key, cas.Dir) {
		t.Fatalf("the key is inside the store")
	}
	// A fresh entry (changed within verifyMargin) is checked but not cached.
	v = NewVerifier(cas, v.Key)
	_ = os.Remove(v.Cache)
	if _, err := v.Verify([]Pin{pin}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(v.Cache); !os.IsNotExist(err) {
		t.Fatalf("a fresh entry was cached: %v", err)
	}
	// gc'd entries leave the cache and the hints.
	v = laterVerifier(cas, root)
	if _, err := v.Verify([]Pin{pin}); err != nil {
		t.Fatal(err)
	}
	if _, err := cas.GC(nil, false); err != nil {
		t.Fatal(err)
	}
	pin2, _ := installEntry(t, cas, "other", map[string]string{"manifest.json": "{}\n"})
	if _, err := laterVerifier(cas, root).Verify([]Pin{pin2}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(v.Cache)
	if c := parseCache(data); err != nil || len(c) != 1 {
		t.Fatalf("cache = %+v, %v", c, err)
	}
	if des, _ := os.ReadDir(v.Hints); len(des) != 1 {
		t.Fatalf("hints = %v", des)
	}
}

// treeSums.h1 is HashDir's algorithm, with and without executables.
func TestTreeSumsH1(t *testing.T) {
	for _, files := range []map[string]os.FileMode{
		{"manifest.json": 0o644, "a/b.txt": 0o644},
		{"manifest.json": 0o644, "hooks/x.sh": 0o755, "hooks/y": 0o700, "z": 0o644},
	} {
		dir := t.TempDir()
		casWriteTree(t, dir, files)
		want, err := HashDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := hashTree(dir)
		if err != nil || s.h1() != want {
			t.Fatalf("h1 = %s, %v; HashDir = %s", s.h1(), err, want)
		}
	}
}

// BenchmarkVerifyStore50 verifies 50 unchanged entries of 20 files each
// (a manifest, scripts, a README, JS sources: ~70 kB an entry) as a session
// start does: a new Verifier reads the key and the cache and stats every
// tree. rehash is the same with no cache: every entry hashed in full.
func BenchmarkVerifyStore50(b *testing.B) {
	root := b.TempDir()
	cas := NewCAS(filepath.Join(root, "store"))
	b.Cleanup(func() { _ = removeAll(cas.Dir) })
	var pins []Pin
	for i := 0; i < 50; i++ {
		pin, _ := installEntry(b, cas, fmt.Sprintf("ext%02d", i), benchFiles(i))
		pins = append(pins, pin)
	}
	key := filepath.Join(root, "state", "store-verify.key")
	warm := laterVerifier(cas, root)
	if _, err := warm.Verify(pins); err != nil {
		b.Fatal(err)
	}
	b.Run("warm", func(b *testing.B) {
		start := cpuTime()
		for b.Loop() {
			v := laterVerifier(cas, root)
			if _, err := v.Verify(pins); err != nil || v.rehashed != 0 {
				b.Fatalf("Verify: %v (rehashed %d)", err, v.rehashed)
			}
		}
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	})
	b.Run("rehash", func(b *testing.B) {
		for b.Loop() {
			v := NewVerifier(cas, key)
			v.Cache = filepath.Join(root, "no-cache")
			v.Now = func() time.Time { return time.Time{} } // never cache
			if _, err := v.Verify(pins); err != nil || v.rehashed != 50 {
				b.Fatalf("Verify: %v (rehashed %d)", err, v.rehashed)
			}
		}
	})
}

// cpuTime is the process's user+system time: on a loaded machine it is
// the figure that does not include waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchFiles(i int) map[string]string {
	files := map[string]string{
		"manifest.json": fmt.Sprintf(`{"name": "ext%02d", "version": "1.0.0", "hooks": {"before_tool": [{"name": "check", "command": "./hooks/check.sh"}]}}`+"\n", i),
		"README.md":     strings.Repeat("Documentation of the extension. ", 120),
		"LICENSE":       strings.Repeat("Permission is hereby granted. ", 35),
	}
	for j := 0; j < 4; j++ {
		files[fmt.Sprintf("hooks/h%d.sh", j)] = "#!/bin/sh\n" + strings.Repeat("echo checking\n", 40)
	}
	for j := 0; j < 10; j++ {
		files[fmt.Sprintf("lib/m%d.js", j)] = strings.Repeat(fmt.Sprintf("export const v%d = %d;\n", j, i), 200)
	}
	for j := 0; j < 3; j++ {
		files[fmt.Sprintf("skills/s%d/SKILL.md", j)] = strings.Repeat("Use this skill when asked. ", 60)
	}
	return files
}
