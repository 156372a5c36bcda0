package resolver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// testRepo is a real git repository built with go-git.
type testRepo struct {
	t    testing.TB
	Dir  string
	repo *git.Repository
}

func newRepo(t testing.TB, dir string) *testRepo {
	t.Helper()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return &testRepo{t: t, Dir: dir, repo: r}
}

// commit writes files (path -> content; a path ending in "*" is made
// executable) and commits them, returning the commit SHA.
func (r *testRepo) commit(files map[string]string, msg string) string {
	r.t.Helper()
	wt, err := r.repo.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	for name, content := range files {
		mode := os.FileMode(0o644)
		if n := len(name); name[n-1] == '*' {
			name, mode = name[:n-1], 0o755
		}
		p := filepath.Join(r.Dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			r.t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			r.t.Fatal(err)
		}
		if _, err := wt.Add(name); err != nil {
			r.t.Fatal(err)
		}
	}
	sig := &object.Signature{Name: "t", Email: "t@example.invalid", When: time.Unix(1700000000, 0)}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		r.t.Fatal(err)
	}
	return h.String()
}

// tag points a lightweight tag at commit, moving it if it exists.
func (r *testRepo) tag(name, commit string) {
	r.t.Helper()
	ref := plumbing.NewHashReference(plumbing.NewTagReferenceName(name), plumbing.NewHash(commit))
	if err := r.repo.Storer.SetReference(ref); err != nil {
		r.t.Fatal(err)
	}
}

func manifest(name string) string {
	return fmt.Sprintf(`{"name": %q, "version": "1.0.0", "description": "test extension"}`, name)
}

// env is a home, a workspace and an applier over them.
type env struct {
	t    *testing.T
	home store.Home
	ws   store.Workspace
	a    *Applier
	ev   []string
}

func newEnv(t *testing.T, profile string) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, home: store.Home{Dir: filepath.Join(root, "home")}, ws: store.Workspace{Root: filepath.Join(root, "ws")}}
	if err := os.MkdirAll(e.ws.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	e.writeProfile(profile)
	e.a = &Applier{
		Resolver: &Resolver{
			Git:   NewGoGit(filepath.Join(e.home.Cache(), "git")),
			Store: store.NewCAS(e.home.Store()),
			Events: Events{
				Fetching: func(k Kind, name, src, ref string) { e.ev = append(e.ev, "fetch "+name) },
				RefMoved: func(k Kind, name, ref, locked, now string) { e.ev = append(e.ev, "moved "+name) },
				Corrupt:  func(name, dir string) { e.ev = append(e.ev, "corrupt "+name) },
			},
		},
		Options: profiles.Options{Home: e.home, Workspace: e.ws},
	}
	t.Cleanup(func() { _ = removeAllWritable(root) })
	return e
}

func (e *env) writeProfile(s string) {
	e.t.Helper()
	if err := os.WriteFile(e.ws.Profile(), []byte(s), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) apply(opts ApplyOptions) (*Result, error) {
	e.ev = nil
	return e.a.Apply(context.Background(), opts)
}

func (e *env) mustApply(opts ApplyOptions) *Result {
	e.t.Helper()
	r, err := e.apply(opts)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) lock() *schema.Lock {
	e.t.Helper()
	l, err := ReadLock(e.ws.Lock())
	if err != nil || l == nil {
		e.t.Fatalf("read lock: %v (nil=%v)", err, l == nil)
	}
	return l
}

// removeAllWritable lets t.TempDir clean up read-only store entries.
func removeAllWritable(root string) error {
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(root)
}
