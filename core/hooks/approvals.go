package hooks

import (
	"time"

	"github.com/ollm/ollm/store"
)

// PermissionApprovals is an Approvals that also records the permissions
// each approval covers (FileApprovals is one). With an Approvals that is
// not, every approval covers the default sandbox only.
type PermissionApprovals interface {
	Approvals
	LookupApproval(id string) (a Approval, ok bool, err error)
	Record(id string, a Approval) error
}

// lookupApproval reads the approval of id from ap.
func lookupApproval(ap Approvals, id string) (Approval, bool, error) {
	if pa, ok := ap.(PermissionApprovals); ok {
		return pa.LookupApproval(id)
	}
	hash, ok, err := ap.Lookup(id)
	return Approval{Hash: hash}, ok, err
}

// recordApproval records a for id in ap.
func recordApproval(ap Approvals, id string, a Approval) error {
	if pa, ok := ap.(PermissionApprovals); ok {
		return pa.Record(id, a)
	}
	return ap.Approve(id, a.Hash)
}

// Approval is what approving r records.
func (r ApprovalRequest) Approval() Approval {
	return Approval{Hash: r.Hash, Permissions: r.Permissions.Clone(), Code: codeOf(r.Hook)}
}

// codeOf is CodeHash of h's extension tree, "" for a loose hook or when
// the tree cannot be read (the approval then holds for this hash only).
func codeOf(h *Hook) string {
	if h == nil || h.Extension == "" || h.Dir == "" {
		return ""
	}
	code, _ := CodeHash(h.Dir)
	return code
}

// FileApprovals keeps approvals in trusted-hooks.json (store.Home
// .TrustedHooks()). Each lookup reads the file, so an approval given by
// another ollm process is seen at once.
type FileApprovals struct {
	Path string
	By   string           // recorded as approvedBy
	Now  func() time.Time // nil means time.Now
}

// LookupApproval returns the approval recorded for id.
func (f FileApprovals) LookupApproval(id string) (Approval, bool, error) {
	t, err := store.LoadTrustedHooks(f.Path)
	if err != nil {
		return Approval{}, false, err
	}
	a, ok := t.Lookup(id)
	return Approval{Hash: a.Hash, Permissions: a.Permissions, Code: a.Code}, ok, nil
}

// Record records the approval of id.
func (f FileApprovals) Record(id string, a Approval) error {
	return store.ApproveHooks(f.Path, f.Entry(id, a))
}

// Entry is the record of an approval of id, as Record writes it.
func (f FileApprovals) Entry(id string, a Approval) store.HookApproval {
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	return store.HookApproval{Source: id, Hash: a.Hash, Permissions: a.Permissions.Clone(), Code: a.Code, ApprovedAt: now().UTC(), ApprovedBy: f.By}
}

// Lookup returns the hash approved for id. It ignores permissions: use
// LookupApproval and DecideHook.
func (f FileApprovals) Lookup(id string) (string, bool, error) {
	a, ok, err := f.LookupApproval(id)
	return a.Hash, ok, err
}

// Approve records id at hash without permissions, which covers the
// default sandbox only: use Record with the hook's Permissions.
func (f FileApprovals) Approve(id, hash string) error {
	return f.Record(id, Approval{Hash: hash})
}

// ApprovalOf is the approval of h at hash: the hash and the permissions
// h declares.
func ApprovalOf(h *Hook, hash string) Approval {
	return Approval{Hash: hash, Permissions: h.Permissions(), Code: codeOf(h)}
}
