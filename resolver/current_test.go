package resolver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/store"
)

func TestLoadCurrent(t *testing.T) {
	repoDir := filepath.Join(t.TempDir(), "guard")
	newRepo(t, repoDir).commit(map[string]string{"manifest.json": manifest("guard")}, "one")
	e := newEnv(t, gitProfile(`guard: {git: "`+repoDir+`"}`))
	if _, ok, err := LoadCurrent(e.home, e.ws); ok || err != nil {
		t.Fatalf("before any apply: ok=%v err=%v", ok, err)
	}
	res := e.mustApply(ApplyOptions{})
	g, ok, err := LoadCurrent(e.home, e.ws)
	if err != nil || !ok || g.Number != res.Generation || g.Resolved.Digest != res.Resolved.Digest {
		t.Fatalf("after apply: %v %v", ok, err)
	}
	if g.Resolved.LockDigest == "" || g.Resolved.LockDigest != LockDigest(e.lock()) {
		t.Fatalf("lock digest %q", g.Resolved.LockDigest)
	}

	// A new extension in the workspace directory is an input change.
	p := filepath.Join(e.ws.Extensions(), "local", "manifest.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(manifest("local")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := LoadCurrent(e.home, e.ws); ok {
		t.Fatalf("a new manifest went unnoticed")
	}
	_ = os.RemoveAll(filepath.Dir(p))
	if _, ok, _ := LoadCurrent(e.home, e.ws); !ok {
		t.Fatalf("inputs restored but generation not used")
	}

	// An edited ollm.cue is an input change ...
	e.writeProfile(gitProfile(`guard: {git: "`+repoDir+`"}`) + "\nmodel: name: \"other\"\n")
	if _, ok, _ := LoadCurrent(e.home, e.ws); ok {
		t.Fatalf("an edited ollm.cue went unnoticed")
	}
	// ... unless the user rolled back to that generation on purpose.
	e.mustApply(ApplyOptions{})
	gens := store.Generations{Dir: e.home.Generations()}
	if err := gens.SetCurrent(e.ws.Root, store.CurrentPointer{Generation: 1, Rollback: true}); err != nil {
		t.Fatal(err)
	}
	g, ok, err = LoadCurrent(e.home, e.ws)
	if err != nil || !ok || g.Number != 1 {
		t.Fatalf("rollback: %+v %v %v", g, ok, err)
	}
}

// benchEnv is a workspace with n git extensions in real repositories.
func benchEnv(b *testing.B, n int) (profileText string, repos string) {
	b.Helper()
	repos = b.TempDir()
	var sb strings.Builder
	sb.WriteString("extensions: sources: {\n")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("ext%02d", i)
		dir := filepath.Join(repos, name)
		newRepo(b, dir).commit(map[string]string{
			"manifest.json": fmt.Sprintf(`{"name": %q, "version": "1.0.0", "description": "bench", "hooks": {"before_tool": [{"name": "h", "command": "./h.sh"}]}}`, name),
			"h.sh*":         "#!/bin/sh\necho '{}'\n",
			"README.md":     strings.Repeat("documentation line\n", 200),
			"lib/util.js":   strings.Repeat("// code\n", 500),
		}, "one")
		fmt.Fprintf(&sb, "\t%s: {git: %q}\n", name, dir)
	}
	sb.WriteString("}\n")
	return sb.String(), repos
}

func benchApplier(home store.Home, ws store.Workspace) *Applier {
	return &Applier{
		Resolver: &Resolver{Git: NewGoGit(filepath.Join(home.Cache(), "git")), Store: store.NewCAS(home.Store())},
		Options:  profiles.Options{Home: home, Workspace: ws},
	}
}

// BenchmarkApply20Cold applies 20 git extensions into an empty home: every
// repository is fetched, hashed and stored.
func BenchmarkApply20Cold(b *testing.B) {
	profile, _ := benchEnv(b, 20)
	root := b.TempDir()
	ws := store.Workspace{Root: filepath.Join(root, "ws")}
	_ = os.MkdirAll(ws.Root, 0o755)
	_ = os.WriteFile(ws.Profile(), []byte(profile), 0o644)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		home := store.Home{Dir: filepath.Join(root, fmt.Sprintf("home%d", i))}
		_ = os.Remove(ws.Lock())
		a := benchApplier(home, ws)
		b.StartTimer()
		if _, err := a.Apply(b.Context(), ApplyOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = removeAllWritable(home.Dir)
		b.StartTimer()
	}
}

// BenchmarkApply20Warm applies 20 locked git extensions that are already
// in the store: nothing to fetch; entries are re-hashed, a generation is
// written.
func BenchmarkApply20Warm(b *testing.B) {
	profile, _ := benchEnv(b, 20)
	root := b.TempDir()
	ws := store.Workspace{Root: filepath.Join(root, "ws")}
	_ = os.MkdirAll(ws.Root, 0o755)
	_ = os.WriteFile(ws.Profile(), []byte(profile), 0o644)
	home := store.Home{Dir: filepath.Join(root, "home")}
	b.Cleanup(func() { _ = removeAllWritable(home.Dir) })
	a := benchApplier(home, ws)
	if _, err := a.Apply(b.Context(), ApplyOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := a.Apply(b.Context(), ApplyOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Plan.Changes) != 0 {
			b.Fatalf("warm apply changed the lock: %v", res.Plan.Changes)
		}
	}
}

// BenchmarkLoadCurrent is session start: the current generation of a
// workspace with 20 locked extensions, inputs checked, no CUE.
func BenchmarkLoadCurrent(b *testing.B) {
	profile, _ := benchEnv(b, 20)
	root := b.TempDir()
	ws := store.Workspace{Root: filepath.Join(root, "ws")}
	_ = os.MkdirAll(ws.Root, 0o755)
	_ = os.WriteFile(ws.Profile(), []byte(profile), 0o644)
	home := store.Home{Dir: filepath.Join(root, "home")}
	b.Cleanup(func() { _ = removeAllWritable(home.Dir) })
	if _, err := benchApplier(home, ws).Apply(b.Context(), ApplyOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, ok, err := LoadCurrent(home, ws)
		if err != nil || !ok || len(g.Resolved.Extensions) != 20 {
			b.Fatalf("LoadCurrent: ok=%v err=%v", ok, err)
		}
	}
}

// BenchmarkLoadCached is the alternative for comparison: profiles.Load
// with its resolution cache warm (also no CUE evaluation).
func BenchmarkLoadCached(b *testing.B) {
	profile, _ := benchEnv(b, 20)
	root := b.TempDir()
	ws := store.Workspace{Root: filepath.Join(root, "ws")}
	_ = os.MkdirAll(ws.Root, 0o755)
	_ = os.WriteFile(ws.Profile(), []byte(profile), 0o644)
	home := store.Home{Dir: filepath.Join(root, "home")}
	b.Cleanup(func() { _ = removeAllWritable(home.Dir) })
	if _, err := benchApplier(home, ws).Apply(b.Context(), ApplyOptions{}); err != nil {
		b.Fatal(err)
	}
	opts, err := StoreOptions(profiles.Options{Home: home, Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	// A session in an approved workspace (an unapproved one holds its
	// extensions back).
	t, err := profiles.WorkspaceTrust(opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := store.ApproveWorkspace(home.TrustedWorkspaces(), store.WorkspaceApproval{Root: ws.Root, Digest: t.Digest}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := profiles.Load(opts)
		if err != nil || len(r.Extensions) != 20 {
			b.Fatalf("Load: %v, %d extensions", err, len(r.Extensions))
		}
	}
}
