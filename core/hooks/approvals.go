package hooks

import (
	"time"

	"github.com/ollm/ollm/store"
)

// FileApprovals keeps approvals in trusted-hooks.json (store.Home
// .TrustedHooks()). Each lookup reads the file, so an approval given by
// another ollm process is seen at once.
type FileApprovals struct {
	Path string
	By   string           // recorded as approvedBy
	Now  func() time.Time // nil means time.Now
}

// Lookup returns the hash approved for id.
func (f FileApprovals) Lookup(id string) (string, bool, error) {
	t, err := store.LoadTrustedHooks(f.Path)
	if err != nil {
		return "", false, err
	}
	a, ok := t.Lookup(id)
	return a.Hash, ok, nil
}

// Approve records id at hash.
func (f FileApprovals) Approve(id, hash string) error {
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	return store.ApproveHooks(f.Path, store.HookApproval{Source: id, Hash: hash, ApprovedAt: now().UTC(), ApprovedBy: f.By})
}
