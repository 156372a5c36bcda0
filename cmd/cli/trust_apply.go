package cli

import (
	"fmt"
	"io"
	"time"

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

// ownEdit is a workspace's approval state before an ollm command the user
// ran (profile init, ext add, mcp add, mcp remove) writes its files.
type ownEdit struct {
	lo       profiles.Options
	approved bool               // approved at its digest, or it brought nothing
	held     []schema.HeldValue // what an unapproved view held back before
	by       string
	now      func() time.Time
}

// ownEditFunc records the state of the workspace at root (the current
// workspace when "") before a command writes it.
type ownEditFunc func(root string) ownEdit

func newOwnEdit(f *Factory) ownEditFunc {
	return func(root string) ownEdit {
		lo, err := f.ProfileOptions()
		if root != "" {
			home, herr := f.Home()
			lo, err = profiles.Options{Home: home, Workspace: store.Workspace{Root: root}}, herr
		}
		if err != nil {
			return ownEdit{}
		}
		e := beforeOwnEdit(lo)
		e.by, e.now = approvedBy(f), f.Now
		return e
	}
}

// beforeOwnEdit records the approval state before the command writes.
func beforeOwnEdit(lo profiles.Options) ownEdit {
	e := ownEdit{lo: lo}
	t, err := profiles.WorkspaceTrust(lo)
	if err != nil || lo.Workspace.Root == "" {
		return e
	}
	if t.Digest == "" {
		e.approved = true
	} else if tw, err := store.LoadTrustedWorkspaces(lo.Home.TrustedWorkspaces()); err == nil && tw.Approved(lo.Workspace.Root, t.Digest) {
		e.approved = true
	}
	e.held = heldView(lo)
	return e
}

// heldView is what an unapproved workspace would have held back.
func heldView(lo profiles.Options) []schema.HeldValue {
	lo.Unapproved, lo.Ungated, lo.NoCache = true, false, true
	r, err := profiles.Load(lo)
	if err != nil {
		return nil
	}
	return r.Trust.Held
}

// approve approves the workspace as the command left it, after showing
// what the command added that widens, when the workspace was approved (or
// empty) before: the approval then covers exactly what was approved plus
// what the command wrote. A workspace with changes nobody approved stays
// held back, and the user is told that `ollm trust` is still needed.
func (e ownEdit) approve(w io.Writer, command string) error {
	if e.lo.Workspace.Root == "" || e.now == nil {
		return nil
	}
	t, err := profiles.WorkspaceTrust(e.lo)
	if err != nil || t.Digest == "" {
		return err
	}
	if !e.approved {
		fmt.Fprintf(w, "the workspace held changes nobody approved before `%s`: they and what it wrote stay held back until `ollm trust` approves them\n", command)
		return nil
	}
	was := map[string]int{}
	for _, h := range e.held {
		was[h.Field+"\x00"+h.Value]++
	}
	var added []schema.HeldValue
	for _, h := range heldView(e.lo) {
		if k := h.Field + "\x00" + h.Value; was[k] > 0 {
			was[k]--
			continue
		}
		added = append(added, h)
	}
	if err := store.ApproveWorkspace(e.lo.Home.TrustedWorkspaces(), store.WorkspaceApproval{Root: e.lo.Workspace.Root, Digest: t.Digest, ApprovedAt: e.now().UTC(), ApprovedBy: e.by}); err != nil {
		return err
	}
	fmt.Fprintf(w, "approved the workspace with what `%s` wrote (%d widening value(s) added)\n", command, len(added))
	for _, h := range added {
		fmt.Fprintf(w, "  widens %s %s  (%s)\n", h.Field, h.Value, h.Pos)
	}
	return nil
}

// notesTo is where a command's notes go: stderr when stdout is JSON.
func notesTo(s *IOStreams, json bool) io.Writer {
	if json {
		return s.ErrOut
	}
	return s.Out
}
