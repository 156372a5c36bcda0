package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ollm/ollm/schema"
)

// cacheFixture is a home, a workspace and an outside directory under a
// fresh temporary directory, and the hooks' policy resolved there.
type cacheFixture struct {
	root, home, ws, outside string
	env                     Env
}

func newCacheFixture(t *testing.T) *cacheFixture {
	t.Helper()
	// Beside the package's other fixtures, not in /tmp: the policy lists
	// the directories on the way to the home, and /tmp's entries come and
	// go with every other program's.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp(wd, ".sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if root, err = filepath.EvalSymlinks(root); err != nil {
		t.Fatal(err)
	}
	f := &cacheFixture{root: root, home: filepath.Join(root, "home"), ws: filepath.Join(root, "src", "ws"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{f.ws, f.outside, filepath.Join(f.home, "go", "bin"), filepath.Join(f.home, ".ssh"), filepath.Join(f.home, ".ollm")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.write(t, filepath.Join(f.home, ".ssh", "id_ed25519"), "KEY")
	f.env = Env{Workspace: f.ws, Home: f.home, OllmHome: filepath.Join(f.home, ".ollm"), Temp: []string{filepath.Join(root, "tmp")},
		Getenv: func(k string) string { return map[string]string{"XDG_CACHE_HOME": filepath.Join(root, "cache")}[k] }}
	return f
}

func (f *cacheFixture) write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// resolve gives the kept policy and a fresh one. Other programs may change
// a listed directory meanwhile (the checkout may lie under /tmp): the
// fresh one is made before and after, until both agree.
func (f *cacheFixture) resolve() (cached, fresh Policy) {
	for {
		before := resolve(nil, schema.Sandbox{}, ProcessDefault, f.env)
		cached = Resolve(schema.Sandbox{}, ProcessDefault, f.env)
		fresh = resolve(nil, schema.Sandbox{}, ProcessDefault, f.env)
		if reflect.DeepEqual(before, fresh) {
			return cached, fresh
		}
	}
}

// policyDiff names what differs between two policies.
func policyDiff(got, want Policy) string {
	var b strings.Builder
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			fmt.Fprintf(&b, "\n%s: cached %v\n%s  fresh %v", g.Type().Field(i).Name, g.Field(i).Interface(), strings.Repeat(" ", len(g.Type().Field(i).Name)), w.Field(i).Interface())
		}
	}
	return b.String()
}

func fills() (int, int) {
	rcache.mu.Lock()
	defer rcache.mu.Unlock()
	return rcache.fills, rcache.drops
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
}

// A kept policy is the one a fresh resolution gives, after every kind of
// change a resolution depends on: each step changes the fresh policy (so
// a cache that kept the old one fails that step) and the cached one must
// follow.
func TestResolveCacheFollowsTheFilesystem(t *testing.T) {
	f := newCacheFixture(t)
	j := func(p ...string) string { return filepath.Join(append([]string{f.root}, p...)...) }
	steps := []struct {
		name   string
		change func(t *testing.T)
	}{
		{"an allow-listed toolchain directory created (~/.cargo/bin)", func(t *testing.T) {
			if err := os.MkdirAll(j("home", ".cargo", "bin"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"an allow-listed directory replaced by a link into a secret (~/go -> ~/.ssh)", func(t *testing.T) {
			if err := os.RemoveAll(j("home", "go")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(j("home", ".ssh"), j("home", "go")); err != nil {
				t.Fatal(err)
			}
		}},
		{"the workspace becomes a repository (git init)", func(t *testing.T) {
			run(t, f.ws, "git", "init", "-q")
		}},
		{"a submodule's git directory appears under .git/modules", func(t *testing.T) {
			for _, d := range []string{"objects", "refs"} {
				if err := os.MkdirAll(j("src", "ws", ".git", "modules", "lib", d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			f.write(t, j("src", "ws", ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n")
		}},
		{"a .gitmodules names a submodule whose .git is a file", func(t *testing.T) {
			for _, g := range []string{"g1", "g2"} {
				if err := os.MkdirAll(j("src", "ws", "gd", g), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			f.write(t, j("src", "ws", "vendor", "x", ".git"), "gitdir: "+j("src", "ws", "gd", "g1")+"\n")
			f.write(t, j("src", "ws", ".gitmodules"), "[submodule \"x\"]\n\tpath = vendor/x\n")
		}},
		{"the content of that .git file changes (no entry created or removed)", func(t *testing.T) {
			// One byte written in place (g1 -> g2): the file changes, no
			// entry of its directory and none of its attributes but the
			// times do.
			p := j("src", "ws", "vendor", "x", ".git")
			fh, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fh.WriteAt([]byte("2"), int64(len("gitdir: "+j("src", "ws", "gd", "g")))); err != nil {
				t.Fatal(err)
			}
			fh.Close()
		}},
		{"a file created beside the home (a listed directory)", func(t *testing.T) {
			f.write(t, j("new-file"), "x")
		}},
		{"a link on the way to a consulted path points elsewhere", func(t *testing.T) {
			// ~/.config -> outside/a/cfg, where outside/a is itself a link:
			// the lookup of git/config goes through both.
			for _, d := range []string{j("outside", "one", "cfg", "git"), j("outside", "two", "cfg")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			f.write(t, j("outside", "one", "cfg", "git", "config"), "[user]\n")
			if err := os.Symlink(j("outside", "two"), j("outside", "a")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(j("outside", "a", "cfg"), j("home", ".config")); err != nil {
				t.Fatal(err)
			}
			if c, _ := f.resolve(); slices.Contains(c.Read, j("home", ".config", "git", "config")) {
				t.Fatal("fixture: git/config readable before the relink")
			}
			if err := os.Remove(j("outside", "a")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(j("outside", "one"), j("outside", "a")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	prev, fresh := f.resolve()
	if !reflect.DeepEqual(prev, fresh) {
		t.Fatalf("first resolution:%s", policyDiff(prev, fresh))
	}
	n0, _ := fills()
	if again, _ := f.resolve(); !reflect.DeepEqual(again, prev) {
		t.Fatal("second resolution differs with nothing changed")
	}
	if n, _ := fills(); n != n0 {
		t.Fatalf("nothing changed, yet the policy was made again (%d fills, then %d)", n0, n)
	}
	for _, s := range steps {
		s.change(t)
		got, want := f.resolve()
		if reflect.DeepEqual(want, prev) {
			t.Fatalf("%s: the fixture's change does not change the policy", s.name)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the kept policy is stale:%s", s.name, policyDiff(got, want))
		}
		prev = got
	}
}

// What a resolution does not depend on leaves the kept policy alone:
// files written, created and removed in the workspace, beside it and in
// the home's directories, by the user or by a build.
func TestResolveCacheIgnoresUnrelatedChanges(t *testing.T) {
	f := newCacheFixture(t)
	run(t, f.ws, "git", "init", "-q")
	for _, d := range []string{filepath.Join(f.ws, "sub"), filepath.Join(f.root, "tmp"), filepath.Join(f.ws, ".git", "objects", "ab"), filepath.Join(f.home, "go", "pkg", "mod", "cache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	first, _ := f.resolve()
	var causes []string
	dropCause = func(c string) { causes = append(causes, c) }
	defer func() { dropCause = nil }()
	for i := range 20 {
		name := "f" + string(rune('a'+i))
		f.write(t, filepath.Join(f.ws, name+".go"), "package x\n")                // the workspace root
		f.write(t, filepath.Join(f.ws, "sub", name), "x")                         // below it
		f.write(t, filepath.Join(f.root, "src", name), "x")                       // beside it
		f.write(t, filepath.Join(f.root, "tmp", name), "x")                       // a temporary directory
		f.write(t, filepath.Join(f.ws, ".git", "objects", "ab", name), "x")       // git's own writes
		f.write(t, filepath.Join(f.home, "go", "pkg", "mod", "cache", name), "x") // a build cache
		if err := os.Remove(filepath.Join(f.ws, name+".go")); err != nil {
			t.Fatal(err)
		}
		got, want := f.resolve()
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(got, first) {
			t.Fatalf("round %d:%s%s", i, policyDiff(got, want), policyDiff(got, first))
		}
	}
	for _, c := range causes {
		if strings.HasPrefix(c, f.root) {
			t.Errorf("the kept policy was dropped for %s", c)
		}
	}
}

// A mount on a consulted path changes what the policy is made from without
// an inotify event: the mount table's change drops what is kept.
func TestResolveCacheFollowsMounts(t *testing.T) {
	if os.Getuid() != 0 {
		cmd := exec.Command("unshare", "--user", "--map-root-user", "--mount", os.Args[0], "-test.run", "^TestResolveCacheFollowsMounts$", "-test.count=1", "-test.v")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestResolveCacheFollowsMounts") {
			t.Fatalf("in a namespace of its own: %v\n%s", err, out)
		}
		return
	}
	f := newCacheFixture(t)
	empty := filepath.Join(f.root, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	before, _ := f.resolve()
	// An empty directory bound over ~/go: the allow-listed ~/go/bin is
	// no longer there.
	if err := syscall.Mount(empty, filepath.Join(f.home, "go"), "", syscall.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	defer syscall.Unmount(filepath.Join(f.home, "go"), syscall.MNT_DETACH)
	f.write(t, filepath.Join(empty, ".git"), "gitdir: /nowhere\n")
	if err := os.MkdirAll(filepath.Join(f.root, "src", "ws2"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Bind a directory holding a .git over the workspace.
	if err := syscall.Mount(empty, f.ws, "", syscall.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	defer syscall.Unmount(f.ws, syscall.MNT_DETACH)
	got, want := f.resolve()
	if reflect.DeepEqual(want, before) {
		t.Fatal("fixture: the mounts do not change the policy")
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after the mounts, the kept policy is stale:%s", policyDiff(got, want))
	}
}
