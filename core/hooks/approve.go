package hooks

import (
	"context"
	"fmt"
	"strings"
)

// allowed applies the trust decision to h, asking through opts.Approve
// when it can. It returns why the hook may not run.
func (e *Engine) allowed(ctx context.Context, h *Hook) (bool, string) {
	if !NeedsApproval(h.Scope, e.opts.TrustWorkspace) {
		return true, ""
	}
	hash, err := e.hashOf(h)
	if err != nil {
		return false, fmt.Sprintf("hook %s not run: %v", h.QualifiedName(), err)
	}
	id := h.ID()
	state, err := e.trustState(h, id, hash)
	if err != nil {
		return false, fmt.Sprintf("hook %s not run: read approvals: %v", h.QualifiedName(), err)
	}
	if state.Runs() {
		return true, ""
	}
	if e.opts.Approve == nil {
		return false, notApproved(h, state)
	}
	req := ApprovalRequest{Hook: h, ID: id, Hash: hash, Permissions: h.Permissions(), Command: CommandString(h), Changed: state == Changed}
	ok, err := e.opts.Approve(ctx, req)
	if err != nil || !ok {
		return false, fmt.Sprintf("hook %s not run: approval refused", h.QualifiedName())
	}
	return e.record(h, id, req.Approval())
}

func (e *Engine) record(h *Hook, id string, a Approval) (bool, string) {
	e.mu.Lock()
	e.approved[id] = a
	e.mu.Unlock()
	if e.opts.Approvals != nil {
		if err := recordApproval(e.opts.Approvals, id, a); err != nil {
			e.opts.Logger.Warn("hook approval not saved", "hook", h.QualifiedName(), "err", err)
		}
	}
	return true, ""
}

// notApproved says which hook was skipped and how to approve it.
func notApproved(h *Hook, s TrustState) string {
	what := "is not approved"
	if s == Changed {
		what = "changed since it was approved"
	}
	from := string(h.Scope)
	if h.Extension != "" {
		from += " extension " + h.Extension
	}
	return fmt.Sprintf("hook %s (%s, %s) %s and was skipped; review it with `ollm hooks list` and approve it with `ollm hooks trust %s`",
		h.QualifiedName(), from, h.Event, what, h.QualifiedName())
}

// trustState looks the approval up: first what this process approved,
// then the approval record.
func (e *Engine) trustState(h *Hook, id, hash string) (TrustState, error) {
	e.mu.Lock()
	mine, ok := e.approved[id]
	e.mu.Unlock()
	if ok && DecideHook(h, e.opts.TrustWorkspace, hash, mine, true) == Approved {
		return Approved, nil
	}
	var stored Approval
	var found bool
	if e.opts.Approvals != nil {
		var err error
		if stored, found, err = lookupApproval(e.opts.Approvals, id); err != nil {
			return Unapproved, err
		}
	}
	return DecideHook(h, e.opts.TrustWorkspace, hash, stored, found), nil
}

// hashOf is the hook's content hash: the lock's hash for a locked
// extension, the h1 hash of its tree (computed once per engine) for an
// unlocked one, and for a loose hook the hash of its command line and
// scripts, computed every time so an edit is seen at once.
func (e *Engine) hashOf(h *Hook) (string, error) {
	return HookHash(h, e.dir(h), e.dirHashCached)
}

func (e *Engine) dirHashCached(dir string) (string, error) {
	e.mu.Lock()
	hv, ok := e.dirHash[dir]
	e.mu.Unlock()
	if ok {
		return hv, nil
	}
	hv, err := HashDir(dir)
	if err == nil {
		e.mu.Lock()
		e.dirHash[dir] = hv
		e.mu.Unlock()
	}
	return hv, err
}

// HookHash computes h's content hash. cwd is the directory a loose hook
// runs in (relative script names are read from it); hashDir hashes
// extension trees (HashDir, or a cache of it).
func HookHash(h *Hook, cwd string, hashDir func(string) (string, error)) (string, error) {
	switch {
	case h.Hash != "":
		return h.Hash, nil
	case h.Extension != "" && h.Dir != "":
		return hashDir(h.Dir)
	}
	return LooseHash(h.Def, cwd)
}

// CommandString is the hook's command line for display.
func CommandString(h *Hook) string {
	if h.Def.Prompt != "" {
		return "prompt: " + h.Def.Prompt
	}
	if h.Def.Shell != "" {
		return strings.TrimSpace(h.Def.Shell + " -c " + h.Def.Command + " " + strings.Join(h.Def.Args, " "))
	}
	return strings.TrimSpace(h.Def.Command + " " + strings.Join(h.Def.Args, " "))
}
