package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The same files give the same archive bytes whatever order they come
// in; the archive holds them sorted under one directory, with the given
// time, no owner and their modes, and the gzip header has no time or name.
func TestArchiveIsReproducible(t *testing.T) {
	mtime := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	files := []file{
		{name: "ollm", mode: 0o755, data: []byte("\x7fELF binary")},
		{name: "README.md", mode: 0o644, data: []byte("# ollm\n")},
		{name: "LICENSE", mode: 0o644, data: []byte("licence\n")},
	}
	a, err := archive("ollm_v1.2.3_linux_amd64", files, mtime)
	if err != nil {
		t.Fatal(err)
	}
	b, err := archive("ollm_v1.2.3_linux_amd64", []file{files[2], files[0], files[1]}, mtime)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("the same files in another order gave different archive bytes")
	}
	c, err := archive("ollm_v1.2.3_linux_amd64", files, mtime.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, c) {
		t.Fatal("the mtime is not in the archive")
	}

	gz, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if !gz.ModTime.IsZero() || gz.Name != "" {
		t.Errorf("gzip header has time %v and name %q, want none", gz.ModTime, gz.Name)
	}
	tr := tar.NewReader(gz)
	want := []struct {
		name string
		mode int64
		body string
	}{
		{"ollm_v1.2.3_linux_amd64/", 0o755, ""},
		{"ollm_v1.2.3_linux_amd64/LICENSE", 0o644, "licence\n"},
		{"ollm_v1.2.3_linux_amd64/README.md", 0o644, "# ollm\n"},
		{"ollm_v1.2.3_linux_amd64/ollm", 0o755, "\x7fELF binary"},
	}
	for i := 0; ; i++ {
		h, err := tr.Next()
		if err == io.EOF {
			if i != len(want) {
				t.Fatalf("%d entries, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) {
			t.Fatalf("extra entry %s", h.Name)
		}
		body, _ := io.ReadAll(tr)
		w := want[i]
		if h.Name != w.name || h.Mode != w.mode || string(body) != w.body || !h.ModTime.Equal(mtime) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("entry %d: %s mode %o uid %d gid %d %q/%q mtime %v body %q, want %s mode %o, root, %v, %q",
				i, h.Name, h.Mode, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime, body, w.name, w.mode, mtime, w.body)
		}
	}
}

// SHA256SUMS is what sha256sum -c checks.
func TestSumsFileChecks(t *testing.T) {
	check := []string{"sha256sum", "-c", "SHA256SUMS"}
	if _, err := exec.LookPath(check[0]); err != nil {
		check = []string{"shasum", "-a", "256", "-c", "SHA256SUMS"} // macOS
	}
	dir := t.TempDir()
	sums := map[string][sha256.Size]byte{}
	for _, n := range []string{"ollm_v1_linux_arm64.tar.gz", "ollm_v1_darwin_amd64.tar.gz"} {
		data := []byte("archive " + n)
		os.WriteFile(filepath.Join(dir, n), data, 0o644)
		sums[n] = sha256.Sum256(data)
	}
	os.WriteFile(filepath.Join(dir, "SHA256SUMS"), sumsFile(sums), 0o644)
	cmd := exec.Command(check[0], check[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", check, err, out)
	}
	os.WriteFile(filepath.Join(dir, "ollm_v1_linux_arm64.tar.gz"), []byte("changed"), 0o644)
	cmd = exec.Command(check[0], check[1:]...)
	cmd.Dir = dir
	if err := cmd.Run(); err == nil {
		t.Fatalf("%v passed a changed archive", check)
	}
}
