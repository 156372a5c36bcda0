package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

func boolp(b bool) *bool { return &b }

var (
	readOnly = &schema.Sandbox{Preset: schema.SandboxReadOnly, Network: boolp(false)}
	offline  = &schema.Sandbox{Network: boolp(false)}
	off      = &schema.Sandbox{Preset: schema.SandboxOff}
)

// A hook's permissions are its own sandbox, else its extension's.
func TestFromResolvedFillsSandbox(t *testing.T) {
	own := schema.Hook{Name: "own", Command: "true", Sandbox: off}
	inherit := schema.Hook{Name: "inherit", Command: "true"}
	r := &schema.Resolved{
		Profile: schema.Profile{Hooks: schema.Hooks{Definitions: []schema.Hook{
			{Name: "loose", Event: "before_tool", Command: "true", Sandbox: readOnly},
			{Name: "plain", Event: "before_tool", Command: "true"},
		}}},
		HookScopes: []schema.Scope{schema.ScopeWorkspace, schema.ScopeWorkspace},
		Extensions: []schema.Extension{{Name: "x", Scope: schema.ScopeStore, Dir: "/s/x", Manifest: schema.Manifest{
			Name: "x", Permissions: offline, Hooks: map[string][]schema.Hook{"before_tool": {own, inherit}}}},
			{Name: "y", Scope: schema.ScopeStore, Dir: "/s/y", Manifest: schema.Manifest{
				Name: "y", Hooks: map[string][]schema.Hook{"before_tool": {inherit}}}}},
	}
	reg, _ := FromResolved(r, BuildOptions{})
	got := map[string]*schema.Sandbox{}
	for _, h := range reg.All() {
		got[h.QualifiedName()] = h.Permissions()
	}
	for name, want := range map[string]*schema.Sandbox{"loose": readOnly, "plain": nil, "x/own": off, "x/inherit": offline, "y/inherit": nil} {
		if !schema.SamePermissions(got[name], want) || (want == nil) != (got[name] == nil) {
			t.Errorf("%s: permissions %+v, want %+v", name, got[name], want)
		}
	}
	// The registry's copy is its own.
	r.Extensions[0].Manifest.Permissions.Network = boolp(true)
	for _, h := range reg.All() {
		if h.QualifiedName() == "x/inherit" && *h.Sandbox.Network {
			t.Error("the hook shares the manifest's permissions")
		}
	}
}

// An approval holds while the hash matches and the hook's permissions are
// within the approved ones; an approval without permissions covers the
// defaults (workspace-write with network) only.
func TestDecideHookPermissions(t *testing.T) {
	wide := &schema.Sandbox{Preset: schema.SandboxWorkspaceWrite, Network: boolp(true), Read: []string{"/data"}}
	for _, c := range []struct {
		name     string
		now      *schema.Sandbox
		approved *schema.Sandbox
		hash     string
		want     TrustState
	}{
		{"same", readOnly, readOnly, "h1", Approved},
		{"narrowed", readOnly, wide, "h1", Approved},
		{"network added", &schema.Sandbox{Preset: schema.SandboxReadOnly}, readOnly, "h1", Changed},
		{"preset widened", &schema.Sandbox{Preset: schema.SandboxWorkspaceWrite, Network: boolp(false)}, readOnly, "h1", Changed},
		{"off", off, wide, "h1", Changed},
		{"path added", &schema.Sandbox{Read: []string{"/data", "/etc"}}, wide, "h1", Changed},
		{"old approval, default", nil, nil, "h1", Approved},
		{"old approval, narrower", readOnly, nil, "h1", Approved},
		{"old approval, wider", off, nil, "h1", Changed},
		{"old approval, extra path", &schema.Sandbox{Write: []string{"/var/x"}}, nil, "h1", Changed},
		{"hash changed, narrowed", readOnly, wide, "h2", Changed},
	} {
		h := &Hook{Name: "h", Scope: schema.ScopeStore}
		if c.now != nil {
			h.Sandbox = *c.now
		}
		if got := DecideHook(h, false, c.hash, Approval{Hash: "h1", Permissions: c.approved}, true); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	h := &Hook{Name: "h", Scope: schema.ScopeUser, Sandbox: *off}
	if got := DecideHook(h, false, "h1", Approval{}, false); got != Trusted {
		t.Errorf("a user hook is %s", got)
	}
	h.Scope = schema.ScopeStore
	if got := DecideHook(h, false, "h1", Approval{}, false); got != Unapproved {
		t.Errorf("a new store hook is %s", got)
	}
}

// extensionEngine builds an engine over the hooks of one store extension
// pinned at a fixed hash (as the lock pins it) with the given manifest
// permissions.
func extensionEngine(t *testing.T, dir string, perms *schema.Sandbox, opts Options) *Engine {
	t.Helper()
	r := &schema.Resolved{Extensions: []schema.Extension{{Name: "guard", Scope: schema.ScopeStore, Dir: dir, Hash: "h1:pinned",
		Manifest: schema.Manifest{Name: "guard", Permissions: perms,
			Hooks: map[string][]schema.Hook{"before_tool": {{Name: "check", Command: "bash", Args: []string{"ok.sh", "ran"}}}}}}}}
	reg, probs := FromResolved(r, BuildOptions{})
	if len(probs) != 0 {
		t.Fatal(probs)
	}
	opts.Enabled = true
	opts.LogDir = t.TempDir()
	opts.Session = Session{ID: "s", Cwd: dir}
	e := New(reg, opts)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// Approving a hook records its extension's permissions; a widening of
// them asks again, a narrowing does not.
func TestWidenedPermissionsAskAgain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "guard")
	os.MkdirAll(dir, 0o755)
	data, _ := os.ReadFile(script(t, "ok.sh"))
	os.WriteFile(filepath.Join(dir, "ok.sh"), data, 0o755)
	ap := FileApprovals{Path: filepath.Join(t.TempDir(), "trusted-hooks.json"), By: "tester"}
	var asked []ApprovalRequest
	ask := func(_ context.Context, r ApprovalRequest) (bool, error) { asked = append(asked, r); return true, nil }
	input := map[string]any{"tool_name": "shell"}

	perms := &schema.Sandbox{Preset: schema.SandboxReadOnly, Network: boolp(true), Read: []string{"/data"}}
	e := extensionEngine(t, dir, perms, Options{Approvals: ap, Approve: ask})
	if out := emit(t, e, BeforeTool, input); out.SystemMessage() != "ran" || len(asked) != 1 || !schema.SamePermissions(asked[0].Permissions, perms) {
		t.Fatalf("first run: %+v, asked %+v", out, asked)
	}
	rec, _ := store.LoadTrustedHooks(ap.Path)
	if a, ok := rec.Lookup(asked[0].ID); !ok || a.Hash != "h1:pinned" || !schema.SamePermissions(a.Permissions, perms) {
		t.Fatalf("recorded %+v", rec)
	}

	for _, c := range []struct {
		name  string
		perms *schema.Sandbox
		runs  bool
	}{
		{"narrowed", &schema.Sandbox{Preset: schema.SandboxReadOnly, Network: boolp(false)}, true},
		{"same", perms, true},
		{"network kept, path dropped", &schema.Sandbox{Preset: schema.SandboxReadOnly}, true},
		{"preset widened", &schema.Sandbox{Preset: schema.SandboxWorkspaceWrite, Network: boolp(true), Read: []string{"/data"}}, false},
		{"off", off, false},
		{"declared none (the default is wider)", nil, false},
		{"path added", &schema.Sandbox{Preset: schema.SandboxReadOnly, Read: []string{"/data", "/home"}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			// No one to ask: runs from the record, or is skipped as changed.
			e := extensionEngine(t, dir, c.perms, Options{Approvals: ap})
			out := emit(t, e, BeforeTool, input)
			if ran := out.SystemMessage() == "ran"; ran != c.runs {
				t.Fatalf("ran %v, want %v: %+v", ran, c.runs, out)
			}
			if !c.runs && (len(out.Notices) != 1 || !strings.Contains(out.Notices[0], "changed since it was approved")) {
				t.Fatalf("notices %v", out.Notices)
			}
		})
	}

	// Asked again after a widening, the new permissions are recorded.
	asked = nil
	e = extensionEngine(t, dir, off, Options{Approvals: ap, Approve: ask})
	if out := emit(t, e, BeforeTool, input); out.SystemMessage() != "ran" || len(asked) != 1 || !asked[0].Changed {
		t.Fatalf("re-approval: %+v, asked %+v", out, asked)
	}
	emit(t, e, BeforeTool, input)
	if len(asked) != 1 {
		t.Fatal("asked twice in one engine")
	}
	if a, _, _ := ap.LookupApproval(asked[0].ID); !schema.SamePermissions(a.Permissions, off) {
		t.Fatalf("recorded %+v", a)
	}
}

// An approval recorded without permissions (before they existed, or by
// Approve) covers the default sandbox only.
func TestOldApprovalCoversTheDefault(t *testing.T) {
	dir := t.TempDir()
	data, _ := os.ReadFile(script(t, "ok.sh"))
	os.WriteFile(filepath.Join(dir, "ok.sh"), data, 0o755)
	ap := FileApprovals{Path: filepath.Join(t.TempDir(), "trusted-hooks.json")}
	probe := extensionEngine(t, dir, nil, Options{})
	id := probe.Registry().All()[0].ID()
	if err := ap.Approve(id, "h1:pinned"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		perms *schema.Sandbox
		runs  bool
	}{{nil, true}, {readOnly, true}, {offline, true}, {off, false}, {&schema.Sandbox{Write: []string{"/opt"}}, false}} {
		e := extensionEngine(t, dir, c.perms, Options{Approvals: ap})
		if ran := emit(t, e, BeforeTool, map[string]any{}).SystemMessage() == "ran"; ran != c.runs {
			t.Errorf("permissions %+v: ran %v, want %v", c.perms, ran, c.runs)
		}
	}
}

// An Approvals that keeps no permissions still works: its approvals cover
// the defaults only.
type hashOnly map[string]string

func (h hashOnly) Lookup(id string) (string, bool, error) { v, ok := h[id]; return v, ok, nil }
func (h hashOnly) Approve(id, hash string) error          { h[id] = hash; return nil }

func TestHashOnlyApprovals(t *testing.T) {
	dir := t.TempDir()
	data, _ := os.ReadFile(script(t, "ok.sh"))
	os.WriteFile(filepath.Join(dir, "ok.sh"), data, 0o755)
	ap := hashOnly{}
	yes := func(context.Context, ApprovalRequest) (bool, error) { return true, nil }
	if out := emit(t, extensionEngine(t, dir, readOnly, Options{Approvals: ap, Approve: yes}), BeforeTool, map[string]any{}); out.SystemMessage() != "ran" || len(ap) != 1 {
		t.Fatalf("%+v %v", out, ap)
	}
	if out := emit(t, extensionEngine(t, dir, readOnly, Options{Approvals: ap}), BeforeTool, map[string]any{}); out.SystemMessage() != "ran" {
		t.Fatalf("narrower than the default: %+v", out)
	}
	if out := emit(t, extensionEngine(t, dir, off, Options{Approvals: ap}), BeforeTool, map[string]any{}); out.SystemMessage() == "ran" {
		t.Fatalf("wider than the default ran: %+v", out)
	}
}
