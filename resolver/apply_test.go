package resolver

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

func gitProfile(sources string) string {
	return "extensions: sources: {\n" + sources + "\n}\n"
}

func TestApplyGitExtensionLocksAndInstalls(t *testing.T) {
	repoDir := filepath.Join(t.TempDir(), "guard")
	r := newRepo(t, repoDir)
	c1 := r.commit(map[string]string{"manifest.json": manifest("guard"), "hooks/run.sh*": "#!/bin/sh\necho hi\n"}, "one")
	r.tag("v1", c1)
	e := newEnv(t, gitProfile(`guard: {git: "`+repoDir+`", ref: "v1"}`))

	res := e.mustApply(ApplyOptions{})
	l := e.lock()
	if len(l.Extensions) != 1 || l.Extensions[0].Commit != c1 || !strings.HasPrefix(l.Extensions[0].Hash, "h1:") {
		t.Fatalf("lock = %+v", l.Extensions)
	}
	if res.Generation != 1 || len(res.Plan.Changes) != 1 || res.Plan.Changes[0].Kind != Added {
		t.Fatalf("result = %+v", res)
	}
	dir, err := store.NewCAS(e.home.Store()).Path(l.Extensions[0].Hash, "guard")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "hooks", "run.sh"))
	if err != nil || fi.Mode().Perm() != 0o555 {
		t.Fatalf("store file mode = %v, %v", fi, err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o555 {
		t.Fatalf("store dir mode = %v", fi.Mode())
	}
	// The resolved extension carries the lock's hash (trust keys to it).
	var got *schema.Extension
	for i := range res.Resolved.Extensions {
		if res.Resolved.Extensions[i].Name == "guard" {
			got = &res.Resolved.Extensions[i]
		}
	}
	if got == nil || got.Hash != l.Extensions[0].Hash || got.Scope != schema.ScopeStore {
		t.Fatalf("resolved extension = %+v", got)
	}
	// Warm: nothing fetched, nothing changed, a new generation.
	res = e.mustApply(ApplyOptions{})
	if len(e.ev) != 0 || len(res.Plan.Changes) != 0 || res.LockWritten || res.Generation != 2 {
		t.Fatalf("warm apply: events %v, result %+v", e.ev, res)
	}
}

func TestForceMovedTagKeepsLockedCommitUntilUpdate(t *testing.T) {
	repoDir := filepath.Join(t.TempDir(), "guard")
	r := newRepo(t, repoDir)
	c1 := r.commit(map[string]string{"manifest.json": manifest("guard")}, "one")
	r.tag("v1", c1)
	e := newEnv(t, gitProfile(`guard: {git: "`+repoDir+`", ref: "v1"}`))
	e.mustApply(ApplyOptions{})
	h1 := e.lock().Extensions[0].Hash

	c2 := r.commit(map[string]string{"README": "changed\n"}, "two")
	r.tag("v1", c2) // force-moved
	// A fresh store (a teammate) gets the locked commit and hears about the move.
	_ = removeAllWritable(e.home.Store())
	res := e.mustApply(ApplyOptions{Locked: true})
	if l := e.lock(); l.Extensions[0].Commit != c1 || l.Extensions[0].Hash != h1 {
		t.Fatalf("lock moved: %+v", l.Extensions[0])
	}
	if len(res.Plan.RefsMoved) != 1 || res.Plan.RefsMoved[0].Now != c2 {
		t.Fatalf("refs moved = %+v (events %v)", res.Plan.RefsMoved, e.ev)
	}
	res = e.mustApply(ApplyOptions{Update: []string{"guard"}})
	if l := e.lock(); l.Extensions[0].Commit != c2 || l.Extensions[0].Hash == h1 {
		t.Fatalf("update did not move: %+v", l.Extensions[0])
	}
	if len(res.Plan.Changes) != 1 || res.Plan.Changes[0].Kind != Changed || res.Plan.Changes[0].Old != c1[:12] {
		t.Fatalf("changes = %+v", res.Plan.Changes)
	}
}

func TestHandEditedLockIsSecurityError(t *testing.T) {
	repoDir := filepath.Join(t.TempDir(), "guard")
	r := newRepo(t, repoDir)
	r.commit(map[string]string{"manifest.json": manifest("guard")}, "one")
	e := newEnv(t, gitProfile(`guard: {git: "`+repoDir+`"}`))
	e.mustApply(ApplyOptions{})
	l := e.lock()
	l.Extensions[0].Hash = "h1:" + strings.Repeat("A", 43) + "="
	if _, err := WriteLock(e.ws.Lock(), l); err != nil {
		t.Fatal(err)
	}
	_, err := e.apply(ApplyOptions{})
	var ce *store.ChecksumError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "SECURITY ERROR") || ce.Source != repoDir {
		t.Fatalf("err = %v", err)
	}
	bad, _ := store.NewCAS(e.home.Store()).Path(l.Extensions[0].Hash, "guard")
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Fatalf("a mismatched tree entered the store: %v", err)
	}
}

func TestCorruptStoreEntryIsFetchedAgain(t *testing.T) {
	repoDir := filepath.Join(t.TempDir(), "guard")
	r := newRepo(t, repoDir)
	r.commit(map[string]string{"manifest.json": manifest("guard"), "a.txt": "a\n"}, "one")
	e := newEnv(t, gitProfile(`guard: {git: "`+repoDir+`"}`))
	e.mustApply(ApplyOptions{})
	dir, _ := store.NewCAS(e.home.Store()).Path(e.lock().Extensions[0].Hash, "guard")
	_ = os.Chmod(dir, 0o755)
	_ = os.Chmod(filepath.Join(dir, "a.txt"), 0o644)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.mustApply(ApplyOptions{})
	if !slices.Contains(e.ev, "corrupt guard") || !slices.Contains(e.ev, "fetch guard") {
		t.Fatalf("events = %v", e.ev)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "a\n" {
		t.Fatalf("entry not restored: %q", data)
	}
}

func TestFaults(t *testing.T) {
	repoDir := filepath.Join(t.TempDir(), "repo")
	r := newRepo(t, repoDir)
	r.commit(map[string]string{"README": "no manifest\n", "ext/manifest.json": manifest("other")}, "one")
	for _, tc := range []struct{ name, source, want string }{
		{"unreachable", `x: {git: "` + filepath.Join(t.TempDir(), "nope") + `"}`, "cannot reach"},
		{"unknown ref", `x: {git: "` + repoDir + `", ref: "v9"}`, `no branch or tag named "v9"`},
		{"no manifest", `x: {git: "` + repoDir + `"}`, "no manifest.json"},
		{"name mismatch", `x: {git: "` + repoDir + `", subdir: "ext"}`, `names it "other" but the profile calls it "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, gitProfile(tc.source))
			_, err := e.apply(ApplyOptions{})
			var se *SourceError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) || se.Name != "x" || !strings.Contains(err.Error(), "fix:") {
				t.Fatalf("err = %v", err)
			}
			if _, err := os.Stat(e.ws.Lock()); !os.IsNotExist(err) {
				t.Fatalf("lock written after a failure")
			}
			entries, _ := store.NewCAS(e.home.Store()).Entries()
			if len(entries) != 0 {
				t.Fatalf("store has %v", entries)
			}
		})
	}
}

func TestLockedFailsWhenMissingOrStale(t *testing.T) {
	repoDir := filepath.Join(t.TempDir(), "guard")
	r := newRepo(t, repoDir)
	r.commit(map[string]string{"manifest.json": manifest("guard")}, "one")
	e := newEnv(t, gitProfile(`guard: {git: "`+repoDir+`"}`))
	var st *StaleError
	if _, err := e.apply(ApplyOptions{Locked: true}); !errors.As(err, &st) || !st.Missing {
		t.Fatalf("missing lock: %v", err)
	}
	e.mustApply(ApplyOptions{})
	e.writeProfile(gitProfile(`guard: {git: "` + repoDir + `", ref: "master"}`))
	if _, err := e.apply(ApplyOptions{Locked: true}); !errors.As(err, &st) || !strings.Contains(err.Error(), "ref  -> ref master") {
		t.Fatalf("stale lock: %v", err)
	}
}

func TestReproducibleAcrossHomes(t *testing.T) {
	repoDir := filepath.Join(t.TempDir(), "guard")
	r := newRepo(t, repoDir)
	c := r.commit(map[string]string{"manifest.json": manifest("guard"), "bin/x*": "#!/bin/sh\n"}, "one")
	r.tag("v1", c)
	profile := gitProfile(`guard: {git: "` + repoDir + `", ref: "v1"}`)
	a, b := newEnv(t, profile), newEnv(t, profile)
	a.mustApply(ApplyOptions{})
	b.mustApply(ApplyOptions{})
	la, _ := os.ReadFile(a.ws.Lock())
	lb, _ := os.ReadFile(b.ws.Lock())
	if string(la) != string(lb) || !strings.HasPrefix(string(la), "{\n  \"//\": \"This file is maintained by ollm.") {
		t.Fatalf("locks differ:\n%s\n%s", la, lb)
	}
	ea, _ := store.NewCAS(a.home.Store()).Entries()
	eb, _ := store.NewCAS(b.home.Store()).Entries()
	if len(ea) != 1 || len(eb) != 1 || ea[0].Name != eb[0].Name {
		t.Fatalf("store entries %v vs %v", ea, eb)
	}
}

// What commands load from the store is verified at use: a changed entry
// stops StoreOptions (every command but apply) and Check with a
// TamperedError; apply sets it aside and fetches it again.
func TestTamperedStoreEntryIsRefusedAtUse(t *testing.T) {
	repoDir := filepath.Join(t.TempDir(), "guard")
	r := newRepo(t, repoDir)
	r.commit(map[string]string{"manifest.json": manifest("guard"), "a.txt": "a\n"}, "one")
	e := newEnv(t, gitProfile(`guard: {git: "`+repoDir+`"}`))
	e.mustApply(ApplyOptions{})
	opts := profiles.Options{Home: e.home, Workspace: e.ws}
	got, err := StoreOptions(opts)
	if err != nil || len(got.Locked) != 1 {
		t.Fatalf("StoreOptions = %+v, %v", got.Locked, err)
	}
	dir := got.Locked[0].Dir
	_ = os.Chmod(dir, 0o755)
	_ = os.Chmod(filepath.Join(dir, "a.txt"), 0o644)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var te *store.TamperedError
	if _, err := StoreOptions(opts); !errors.As(err, &te) || te.Name != "guard" || te.Dir != dir || te.Diff != "changed a.txt" {
		t.Fatalf("StoreOptions after the edit: %v", err)
	}
	if _, _, err := e.a.Check(); !errors.As(err, &te) {
		t.Fatalf("Check after the edit: %v", err)
	}
	e.mustApply(ApplyOptions{})
	if got, err := StoreOptions(opts); err != nil || len(got.Locked) != 1 {
		t.Fatalf("StoreOptions after apply = %+v, %v", got.Locked, err)
	}
}
