package cli

import (
	"fmt"

	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// approvalBefore is the workspace's approval record before an apply
// writes the lock: set when the user approved the workspace at its
// current digest (not when hooks.trustWorkspace trusts every workspace).
func approvalBefore(lo profiles.Options) (store.WorkspaceApproval, bool) {
	t, err := profiles.WorkspaceTrust(lo)
	if err != nil || t.Digest == "" {
		return store.WorkspaceApproval{}, false
	}
	tw, err := store.LoadTrustedWorkspaces(lo.Home.TrustedWorkspaces())
	if err != nil || !tw.Approved(lo.Workspace.Root, t.Digest) {
		return store.WorkspaceApproval{}, false
	}
	a, _ := tw.Find(lo.Workspace.Root)
	return a, true
}

// keepApproval carries an approval over a lock the apply wrote when the
// new lock pins only what was approved: every entry the old lock pinned
// keeps its hash (and version), and new entries are first pins of sources
// the approved profile asks for (its files are unchanged, or the digest
// before the apply would not have matched). Anything else needs a new
// `ollm trust`. It returns a line for the user, or "".
func keepApproval(lo profiles.Options, before store.WorkspaceApproval, old, lock *schema.Lock) (string, error) {
	t, err := profiles.WorkspaceTrust(lo)
	if err != nil || t.Digest == "" || t.Digest == before.Digest {
		return "", err
	}
	if changed := changedPins(old, lock); len(changed) > 0 {
		return fmt.Sprintf("the new ollm.lock changes what the approved workspace runs (%s): its widening values are held back until you review it with `ollm trust`", joinNames(changed)), nil
	}
	a := before
	a.Digest = t.Digest
	if err := store.ApproveWorkspace(lo.Home.TrustedWorkspaces(), a); err != nil {
		return "", err
	}
	return "kept the approval of the workspace: the new ollm.lock pins only what was approved", nil
}

// changedPins names the entries of lock whose pin differs from old's.
func changedPins(old, lock *schema.Lock) []string {
	if old == nil || lock == nil {
		return nil
	}
	var out []string
	src := func(kind string, prev, cur []schema.LockedSource) {
		was := map[string]schema.LockedSource{}
		for _, e := range prev {
			was[e.Name] = e
		}
		for _, e := range cur {
			if p, ok := was[e.Name]; ok && (p.Hash != e.Hash || p.Commit != e.Commit) {
				out = append(out, kind+" "+e.Name)
			}
		}
	}
	src("profile", old.Profiles, lock.Profiles)
	src("extension", old.Extensions, lock.Extensions)
	was := map[string]string{}
	for _, p := range old.Packages {
		was[p.Server+"\x00"+p.Package] = p.Version
	}
	for _, p := range lock.Packages {
		if v, ok := was[p.Server+"\x00"+p.Package]; ok && v != p.Version {
			out = append(out, "package "+p.Package)
		}
	}
	return out
}

func joinNames(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
