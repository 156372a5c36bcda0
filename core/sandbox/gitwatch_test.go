package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/sandbox"
)

// Every way a run makes a repository is held when it ends: a .git
// directory, one deep in directories made at once (mkdir -p), a .git file
// pointing elsewhere, a directory shaped like a bare repository, a
// directory moved in holding one. What the user made while nothing ran,
// and the workspace's own repository, stay.
func TestGitWatchHoldsWhatARunMade(t *testing.T) {
	ws := t.TempDir()
	run := func(script string) {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", script, err, out)
		}
	}
	run("git init -q . && mkdir -p src/pkg node_modules/x")
	g := sandbox.NewGitWatch(ws)
	defer g.Close()
	g.Begin()
	if held := g.End(); len(held) != 0 {
		t.Fatalf("nothing ran, yet held: %v", held)
	}
	run("git init -q mine") // the user's, between runs
	outside := t.TempDir()
	g.Begin()
	run("mkdir src/.git && echo '[core]' > src/.git/config; " +
		"mkdir -p deep/er/est/.git; " +
		"echo 'gitdir: " + outside + "' > src/pkg/.git; " +
		"mkdir -p bare/objects bare/refs && echo 'ref: refs/heads/main' > bare/HEAD; " +
		"mkdir " + outside + "/moved && mkdir " + outside + "/moved/.git && mv " + outside + "/moved moved-in; " +
		"mkdir node_modules/x/.git")
	held := g.End()
	var got []string
	for _, h := range held {
		if h.Err != nil {
			t.Errorf("%s not held: %v", h.Path, h.Err)
		}
		got = append(got, strings.TrimPrefix(h.Path, ws+"/"))
	}
	slices.Sort(got)
	want := []string{"bare/HEAD", "deep/er/est/.git", "moved-in/.git", "src/.git", "src/pkg/.git"}
	if !slices.Equal(got, want) {
		t.Errorf("held %q, want %q", got, want)
	}
	for _, p := range want {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range []string{".git", "mine/.git"} {
		if _, err := os.Stat(filepath.Join(ws, p, "HEAD")); err != nil {
			t.Errorf("the user's %s was touched: %v", p, err)
		}
	}
}
