package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// TestGoInstallFromProxy installs ollm the way a user does, `go install
// github.com/ollm/ollm/cmd/ollm@<version>`, from a module proxy that is a
// directory holding this checkout as that version (its files as git lists
// them, zipped the way the go command zips a module), and checks that the
// installed ollm says that version. It fails when go.mod has a replace or
// exclude directive (go install refuses such a module) or a package needs a
// file outside the module. Nothing comes from the network: the other
// modules come from the local module cache, warm after any build.
func TestGoInstallFromProxy(t *testing.T) {
	root := repoRoot()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	modCache := goEnv(t, "GOMODCACHE")

	// A version of its own per run: the module cache keeps what it
	// extracted under the version, and the test removes it at the end.
	version := fmt.Sprintf("v0.0.0-test.%d", time.Now().UnixNano())
	const path = "github.com/ollm/ollm"
	proxy := t.TempDir()
	dir := filepath.Join(proxy, filepath.FromSlash(path), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files []modzip.File
	for _, f := range repoFiles(t, root) {
		files = append(files, zipFile{root: root, path: f})
	}
	var zbuf bytes.Buffer
	if err := modzip.Create(&zbuf, module.Version{Path: path, Version: version}, files); err != nil {
		t.Fatalf("zipping the module: %v", err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, data := range map[string][]byte{"list": []byte(version + "\n"), version + ".info": info, version + ".mod": mod, version + ".zip": zbuf.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		// What the go command stored of this version in the module cache
		// (-modcacherw left it writable).
		os.RemoveAll(filepath.Join(modCache, filepath.FromSlash(path)+"@"+version))
		dl := filepath.Join(modCache, "cache", "download", filepath.FromSlash(path), "@v")
		matches, _ := filepath.Glob(filepath.Join(dl, version+".*"))
		for _, m := range append(matches, filepath.Join(dl, "list")) {
			os.Remove(m)
		}
		// And the directories left empty (Remove leaves others alone).
		for _, d := range []string{dl, filepath.Dir(dl), filepath.Dir(filepath.Dir(dl)), filepath.Join(modCache, "github.com", "ollm")} {
			os.Remove(d)
		}
	})

	gobin := t.TempDir()
	cmd := exec.Command(goBin, "install", path+"/cmd/ollm@"+version)
	cmd.Dir = t.TempDir() // outside any module
	cmd.Env = append(os.Environ(),
		"GOBIN="+gobin,
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(modCache, "cache", "download")),
		"GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=", "GONOPROXY=",
		"GOFLAGS=-modcacherw", "GOTOOLCHAIN=local", "GOWORK=off",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go install %s/cmd/ollm@%s: %v\n%s", path, version, err, out)
	}
	ver := exec.Command(filepath.Join(gobin, "ollm"), "version")
	ver.Env = hermetic(t)
	ver.Dir = t.TempDir()
	got, err := ver.CombinedOutput()
	if err != nil {
		t.Fatalf("the installed ollm version: %v\n%s", err, got)
	}
	if want := "ollm " + version + " ("; !strings.HasPrefix(string(got), want) {
		t.Errorf("the installed ollm version printed %q, want it to start with %q", got, want)
	}
}

// TestMakeBuildNamesTheCommit builds with `make build` and checks that
// ollm version prints what git describe says of the checkout.
func TestMakeBuildNamesTheCommit(t *testing.T) {
	root := repoRoot()
	for _, tool := range []string{"make", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to run make build: %v", tool, err)
		}
	}
	describe := exec.Command("git", "describe", "--tags", "--always", "--dirty")
	describe.Dir = root
	want, err := describe.Output()
	if err != nil {
		t.Fatalf("git describe in %s: %v", root, err)
	}
	bindir := t.TempDir()
	build := exec.Command("make", "--no-print-directory", "-C", root, "build", "BINDIR="+bindir)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	ver := exec.Command(filepath.Join(bindir, "ollm"), "version")
	ver.Env = hermetic(t)
	ver.Dir = t.TempDir()
	got, err := ver.CombinedOutput()
	if err != nil {
		t.Fatalf("ollm version: %v\n%s", err, got)
	}
	if w := "ollm " + strings.TrimSpace(string(want)) + " ("; !strings.HasPrefix(string(got), w) {
		t.Errorf("ollm version from make build printed %q, want it to start with %q", got, w)
	}
}

// repoFiles lists the checkout's files as git does: tracked ones and new
// ones not ignored, without those deleted from the working tree.
func repoFiles(t *testing.T, root string) []string {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files in %s (the test zips the checkout's files): %v", root, err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if _, err := os.Lstat(filepath.Join(root, f)); err == nil {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatalf("git ls-files in %s lists no file", root)
	}
	return files
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// zipFile is a file of the checkout for modzip.Create.
type zipFile struct{ root, path string }

func (f zipFile) Path() string                 { return f.path }
func (f zipFile) Lstat() (os.FileInfo, error)  { return os.Lstat(filepath.Join(f.root, f.path)) }
func (f zipFile) Open() (io.ReadCloser, error) { return os.Open(filepath.Join(f.root, f.path)) }
