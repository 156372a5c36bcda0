package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestHookApprovals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trusted-hooks.json")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := ApproveHooks(path, HookApproval{Source: "a", Hash: "h1", ApprovedAt: now, ApprovedBy: "me"}); err != nil {
		t.Fatal(err)
	}
	if err := ApproveHooks(path, HookApproval{Source: "a", Hash: "h2", ApprovedAt: now, ApprovedBy: "me"}, HookApproval{Source: "b", Hash: "x"}); err != nil {
		t.Fatal(err)
	}
	tr, err := LoadTrustedHooks(path)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := tr.Lookup("a"); !ok || a.Hash != "h2" || !a.ApprovedAt.Equal(now) || len(tr.Approvals) != 2 || tr.Version != TrustVersion {
		t.Fatalf("approvals = %+v", tr)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != PermPrivate {
		t.Errorf("mode = %v", fi.Mode().Perm())
	}
	n, err := RevokeHooks(path, "a", "missing")
	if err != nil || n != 1 {
		t.Fatalf("revoke = %d, %v", n, err)
	}
	if tr, _ = LoadTrustedHooks(path); len(tr.Approvals) != 1 || tr.Approvals[0].Source != "b" {
		t.Fatalf("after revoke: %+v", tr)
	}
}

func TestConcurrentApprovalsAreAllKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trusted-hooks.json")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := ApproveHooks(path, HookApproval{Source: string(rune('a' + i)), Hash: "h"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if tr, _ := LoadTrustedHooks(path); len(tr.Approvals) != 20 {
		t.Fatalf("kept %d of 20 approvals", len(tr.Approvals))
	}
}

func TestWorkspaceApprovalAndDigest(t *testing.T) {
	ws := Workspace{Root: t.TempDir()}
	if d, err := WorkspaceDigest(ws); err != nil || d != "" {
		t.Fatalf("digest of an empty workspace = %q, %v", d, err)
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ws.Profile(), "version: 1\n")
	d1, _ := WorkspaceDigest(ws)
	write(ws.Lock(), "{}")
	d2, _ := WorkspaceDigest(ws)
	write(ws.MCPJSON(), `{"mcpServers":{}}`)
	d3, _ := WorkspaceDigest(ws)
	write(ws.MCPJSON(), "")
	d4, _ := WorkspaceDigest(ws)
	seen := map[string]bool{}
	for _, d := range []string{d1, d2, d3, d4} {
		if d == "" || seen[d] {
			t.Fatalf("digests should all differ: %s %s %s %s", d1, d2, d3, d4)
		}
		seen[d] = true
	}

	path := filepath.Join(t.TempDir(), "trusted-workspaces.json")
	if err := ApproveWorkspace(path, WorkspaceApproval{Root: ws.Root, Digest: d4, ApprovedBy: "me"}); err != nil {
		t.Fatal(err)
	}
	tw, _ := LoadTrustedWorkspaces(path)
	if !tw.Approved(ws.Root, d4) || tw.Approved(ws.Root, d3) || tw.Approved("/other", d4) {
		t.Fatalf("approvals = %+v", tw)
	}
	if ok, err := RevokeWorkspace(path, ws.Root); !ok || err != nil {
		t.Fatalf("revoke = %v, %v", ok, err)
	}
	if tw, _ = LoadTrustedWorkspaces(path); tw.Approved(ws.Root, d4) {
		t.Fatal("still approved after revoke")
	}
}

// Replacing a workspace's approval keeps the digests it was approved at
// before, newest first and bounded; they approve nothing by themselves,
// a digest never approved for the root is not among them, and revoking
// the workspace forgets them.
func TestWorkspaceEarlierApprovals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trusted-workspaces.json")
	approve := func(root, d string) {
		t.Helper()
		if err := ApproveWorkspace(path, WorkspaceApproval{Root: root, Digest: d, ApprovedBy: "me",
			Earlier: []EarlierApproval{{Digest: "injected"}}}); err != nil {
			t.Fatal(err)
		}
	}
	approve("/ws", "d1")
	approve("/other", "x1")
	approve("/ws", "d2")
	approve("/ws", "d1") // approved again: d2 is earlier now, d1 only current
	tw, err := LoadTrustedWorkspaces(path)
	if err != nil {
		t.Fatal(err)
	}
	if !tw.Approved("/ws", "d1") || tw.Approved("/ws", "d2") {
		t.Fatalf("an earlier digest approves the workspace: %+v", tw)
	}
	for _, d := range []string{"d1", "d2"} {
		if _, ok := tw.EarlierApproval("/ws", d); !ok {
			t.Fatalf("%s was approved for /ws before: %+v", d, tw)
		}
	}
	for _, d := range []string{"x1", "injected", "never", ""} {
		if _, ok := tw.EarlierApproval("/ws", d); ok {
			t.Fatalf("%q was never approved for /ws but is found: %+v", d, tw)
		}
	}
	if a, _ := tw.Find("/ws"); len(a.Earlier) != 1 || a.Earlier[0].Digest != "d2" {
		t.Fatalf("earlier = %+v, want [d2]", a.Earlier)
	}

	for i := range MaxEarlierApprovals + 5 {
		approve("/ws", fmt.Sprintf("n%d", i))
	}
	tw, _ = LoadTrustedWorkspaces(path)
	a, _ := tw.Find("/ws")
	if len(a.Earlier) != MaxEarlierApprovals || a.Earlier[0].Digest != fmt.Sprintf("n%d", MaxEarlierApprovals+3) {
		t.Fatalf("earlier = %d entries starting %+v, want %d, newest first", len(a.Earlier), a.Earlier[0], MaxEarlierApprovals)
	}
	if _, ok := tw.EarlierApproval("/ws", "d1"); ok {
		t.Fatal("the oldest digest is kept beyond the bound")
	}

	if _, err := RevokeWorkspace(path, "/ws"); err != nil {
		t.Fatal(err)
	}
	tw, _ = LoadTrustedWorkspaces(path)
	if _, ok := tw.EarlierApproval("/ws", "n3"); ok {
		t.Fatal("an earlier approval survives `ollm trust --revoke`")
	}
}
