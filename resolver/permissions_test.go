package resolver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

const permsManifest = `{"name": "tools", "version": "1.0.0", "description": "test extension",
 "permissions": {"preset": "read-only", "network": false, "read": ["/opt/data"]}}`

// writeExt writes a local extension under the workspace.
func (e *env) writeExt(rel, manifest string) {
	e.t.Helper()
	dir := filepath.Join(e.ws.Root, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// The lock pins each extension's manifest permissions beside its hash;
// an extension that declares none has no permissions in the lock.
func TestLockPinsManifestPermissions(t *testing.T) {
	e := newEnv(t, gitProfile(`tools: {path: "./ext/tools"}, plain: {path: "./ext/plain"}`))
	e.writeExt("ext/tools", permsManifest)
	e.writeExt("ext/plain", manifest("plain"))
	e.mustApply(ApplyOptions{})
	l := e.lock()
	plain, tools := l.Extensions[0], l.Extensions[1]
	p := tools.Permissions
	if p == nil || p.Preset != schema.SandboxReadOnly || p.Network == nil || *p.Network || len(p.Read) != 1 || p.Read[0] != "/opt/data" {
		t.Fatalf("tools permissions = %+v", p)
	}
	if plain.Permissions != nil {
		t.Fatalf("plain permissions = %+v", plain.Permissions)
	}
	data, _ := os.ReadFile(e.ws.Lock())
	if strings.Count(string(data), `"permissions"`) != 1 || !strings.Contains(string(data), `"preset": "read-only"`) {
		t.Fatalf("lock:\n%s", data)
	}
	// Locked and current: passes, and Check finds nothing.
	e.mustApply(ApplyOptions{Locked: true})
	if ch, _, err := e.a.Check(); err != nil || len(ch) != 0 {
		t.Fatalf("check = %+v, %v", ch, err)
	}
	// A dry run reads the permissions from the directory.
	res := e.mustApply(ApplyOptions{DryRun: true})
	if got := res.Lock.Extensions[1].Permissions; !schema.SamePermissions(got, p) {
		t.Fatalf("dry run permissions = %+v", got)
	}
}

// A lock whose permissions differ from the manifest's (edited by hand, or
// written before permissions were pinned) is stale under --locked, like a
// changed hash; a plain apply writes the manifest's back.
func TestLockedRefusesOtherPermissions(t *testing.T) {
	repoDir := filepath.Join(t.TempDir(), "tools")
	r := newRepo(t, repoDir)
	r.commit(map[string]string{"manifest.json": permsManifest}, "one")
	e := newEnv(t, gitProfile(`tools: {git: "`+repoDir+`"}`))
	e.mustApply(ApplyOptions{})
	pinned := e.lock().Extensions[0].Permissions

	for name, edit := range map[string]func(*schema.LockedSource){
		"dropped":  func(s *schema.LockedSource) { s.Permissions = nil },
		"widened":  func(s *schema.LockedSource) { s.Permissions.Preset = schema.SandboxOff },
		"narrowed": func(s *schema.LockedSource) { s.Permissions.Read = nil },
	} {
		t.Run(name, func(t *testing.T) {
			l := e.lock()
			edit(&l.Extensions[0])
			if _, err := WriteLock(e.ws.Lock(), l); err != nil {
				t.Fatal(err)
			}
			_, err := e.apply(ApplyOptions{Locked: true})
			var se *SourceError
			if !errors.Is(err, ErrChangedSinceLock) || !errors.As(err, &se) || se.Name != "tools" || !strings.Contains(err.Error(), "permissions") {
				t.Fatalf("apply --locked: %v", err)
			}
			ch, _, err := e.a.Check()
			if err != nil || len(ch) != 1 || ch[0].Name != "tools" || !strings.HasPrefix(ch[0].New, "permissions {") {
				t.Fatalf("check = %+v, %v", ch, err)
			}
			res := e.mustApply(ApplyOptions{})
			if got := e.lock().Extensions[0].Permissions; !schema.SamePermissions(got, pinned) {
				t.Fatalf("apply kept %+v", got)
			}
			if len(res.Plan.Changes) != 1 || !strings.HasPrefix(res.Plan.Changes[0].New, "permissions ") {
				t.Fatalf("changes = %+v", res.Plan.Changes)
			}
		})
	}
}

// Changing a local extension's permissions changes its hash and its
// pinned permissions together.
func TestPathPermissionsFollowTheManifest(t *testing.T) {
	e := newEnv(t, gitProfile(`tools: {path: "./ext/tools"}`))
	e.writeExt("ext/tools", permsManifest)
	e.mustApply(ApplyOptions{})
	before := e.lock().Extensions[0]
	e.writeExt("ext/tools", strings.Replace(permsManifest, `"read-only"`, `"off"`, 1))
	if _, err := e.apply(ApplyOptions{Locked: true}); !errors.Is(err, ErrChangedSinceLock) {
		t.Fatalf("apply --locked: %v", err)
	}
	e.mustApply(ApplyOptions{})
	after := e.lock().Extensions[0]
	if after.Hash == before.Hash || after.Permissions == nil || after.Permissions.Preset != schema.SandboxOff {
		t.Fatalf("before %+v after %+v", before, after)
	}
}

func TestManifestPermissionsErrors(t *testing.T) {
	dir := t.TempDir()
	if p, err := ManifestPermissions(dir); p != nil || err != nil {
		t.Fatalf("no manifest: %+v, %v", p, err)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"permissions": {"network": "yes"}}`), 0o644)
	if _, err := ManifestPermissions(dir); err == nil || !strings.Contains(err.Error(), "permissions") {
		t.Fatalf("malformed: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"permissions": {}}`), 0o644)
	if p, err := ManifestPermissions(dir); p != nil || err != nil {
		t.Fatalf("empty permissions: %+v, %v", p, err)
	}
}

// Equal permissions in different values are no change; other ones are.
func TestDiffPermissions(t *testing.T) {
	no := false
	a := &schema.Lock{Extensions: []schema.LockedSource{{Name: "x", Type: "path", Source: "./x", Hash: "h1:a",
		Permissions: &schema.Sandbox{Preset: schema.SandboxReadOnly, Network: &no}}}}
	b := CopyLock(a)
	if b.Extensions[0].Permissions == a.Extensions[0].Permissions {
		t.Fatal("CopyLock shares permissions")
	}
	if ch := Diff(a, b); len(ch) != 0 {
		t.Fatalf("equal locks differ: %+v", ch)
	}
	b.Extensions[0].Permissions.Preset = schema.SandboxOff
	ch := Diff(a, b)
	if len(ch) != 1 || ch[0].Kind != Changed || ch[0].Old != `permissions {"preset":"read-only","network":false}` || ch[0].New != `permissions {"preset":"off","network":false}` {
		t.Fatalf("changes = %+v", ch)
	}
	if a.Extensions[0].Permissions.Preset != schema.SandboxReadOnly {
		t.Fatal("Diff changed its input")
	}
}
