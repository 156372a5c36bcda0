package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The writer child: rewrites the file with alternating contents forever.
func TestMain(m *testing.M) {
	if path := os.Getenv("OLLM_STORE_TEST_WRITER"); path != "" {
		for i := 0; ; i++ {
			if err := WriteFile(path, content(i%2), PermShared); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
			if i == 0 {
				fmt.Println("ready") // the parent kills only once writes are under way
			}
		}
	}
	os.Exit(m.Run())
}

// content is large enough that a torn write would be visible.
func content(which int) []byte {
	c := byte('a' + which)
	return append(bytes.Repeat([]byte{c}, 256<<10), '\n')
}

// A writer killed with SIGKILL at random points leaves the complete old or
// the complete new content, never a mix or a truncated file.
func TestWriteFileSurvivesSIGKILL(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := WriteFile(path, content(0), PermShared); err != nil {
		t.Fatal(err)
	}
	a, b := content(0), content(1)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	const rounds = 200
	for i := 0; i < rounds; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "OLLM_STORE_TEST_WRITER="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			t.Fatalf("round %d: writer did not start: %v", i, err)
		}
		time.Sleep(time.Duration(rng.Intn(3000)) * time.Microsecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("round %d: torn file: %d bytes, first %q last %q", i, len(got), got[:1], got[len(got)-1:])
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != PermShared {
		t.Errorf("mode = %v, %v; want %v", fi.Mode().Perm(), err, PermShared)
	}
}

func TestUpdateJSONConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter.json")
	type counter struct{ N int }
	done := make(chan error)
	for w := 0; w < 4; w++ {
		go func() {
			for i := 0; i < 50; i++ {
				if err := UpdateJSON(path, PermPrivate, func(c *counter) error { c.N++; return nil }); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for w := 0; w < 4; w++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	var c counter
	if _, err := ReadJSON(path, &c); err != nil || c.N != 200 {
		t.Errorf("counter = %d, %v; want 200", c.N, err)
	}
}

func TestReadJSONErrors(t *testing.T) {
	dir := t.TempDir()
	var v map[string]any
	if found, err := ReadJSON(filepath.Join(dir, "missing.json"), &v); found || err != nil {
		t.Errorf("missing file: found=%v err=%v", found, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"a\": 1,\n  oops\n}"), 0o644)
	_, err := ReadJSON(bad, &v)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(bad+":3:3")) {
		t.Errorf("malformed JSON error = %v; want file:line:col", err)
	}
}

// A developer's home: ~/.ollm (the default OLLM_HOME), ~/ollm.cue, a
// dotfiles repository at ~/.git, and projects below it.
func TestFindWorkspace(t *testing.T) {
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home", "you")
	h := Home{Dir: filepath.Join(home, ".ollm")}
	mk := func(rel ...string) string {
		p := filepath.Join(append([]string{tmp}, rel...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	put := func(p string) {
		if err := os.WriteFile(p, []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("home", "you", ".ollm", "extensions", "x")
	mk("home", "you", ".git")
	put(filepath.Join(home, ProfileFileName))
	put(filepath.Join(h.Dir, "extensions", "x", ProfileFileName))
	plain := mk("home", "you", "src", "plain", "sub")
	mk("home", "you", "src", "plain", ".ollm") // left by a session: marks nothing
	repo := mk("home", "you", "src", "group", "repo")
	mk("home", "you", "src", "group", "repo", ".git")
	deep := mk("home", "you", "src", "group", "repo", "a", "b")
	group := filepath.Join(home, "src", "group")
	put(filepath.Join(group, ProfileFileName)) // above the repository: not its workspace
	notGit := mk("home", "you", "src", "group", "notes")
	mono := mk("home", "you", "src", "group", "repo", "svc")
	put(filepath.Join(mono, ProfileFileName))
	wt := mk("home", "you", "src", "wt", "pkg")
	put(filepath.Join(tmp, "home", "you", "src", "wt", ".git")) // a worktree's .git file
	outside := mk("srv", "proj", "sub")
	put(filepath.Join(tmp, "srv", "proj", ProfileFileName))
	if err := os.Symlink(home, filepath.Join(tmp, "home-link")); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, dir, root string
		found           Found
		not             string // a *NotWorkspaceError naming this
	}{
		{name: "no ollm.cue, no git: the directory itself", dir: plain, root: plain, found: FoundDir},
		{name: ".ollm/ alone marks nothing", dir: filepath.Dir(plain), root: filepath.Dir(plain), found: FoundDir},
		{name: "inside a repository: its top", dir: deep, root: repo, found: FoundGit},
		{name: "no git: the nearest ollm.cue below the home", dir: notGit, root: group, found: FoundProfile},
		{name: "the repository's top itself", dir: repo, root: repo, found: FoundGit},
		{name: "ollm.cue inside the repository", dir: filepath.Join(mono), root: mono, found: FoundProfile},
		{name: "a worktree's .git file", dir: wt, root: filepath.Dir(wt), found: FoundGit},
		{name: "outside the home: nearest ollm.cue", dir: outside, root: filepath.Dir(outside), found: FoundProfile},
		{name: "the home directory", dir: home, not: "your home directory"},
		{name: "the home directory through a link", dir: filepath.Join(tmp, "home-link"), not: "your home directory"},
		{name: "OLLM_HOME", dir: h.Dir, not: "inside OLLM_HOME"},
		{name: "inside OLLM_HOME, even with ollm.cue", dir: filepath.Join(h.Dir, "extensions", "x"), not: "inside OLLM_HOME"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, err := FindWorkspace(tc.dir, home, h)
			if tc.not != "" {
				var ne *NotWorkspaceError
				if !errors.As(err, &ne) || !strings.Contains(err.Error(), tc.not) || !strings.Contains(err.Error(), "-C DIR") {
					t.Fatalf("FindWorkspace(%s) = %+v, %v; want a NotWorkspaceError naming %q", tc.dir, ws, err, tc.not)
				}
				return
			}
			if err != nil || ws.Root != tc.root || ws.Found != tc.found {
				t.Fatalf("FindWorkspace(%s) = %+v, %v; want %s by %s", tc.dir, ws, err, tc.root, tc.found)
			}
		})
	}
}
