package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ollm/ollm/schema"
)

// TrustVersion is the format version of the approval files.
const TrustVersion = 1

// HookApproval records that a user approved the hook with stable id
// Source at content hash Hash, with the sandbox permissions it declared
// then (nil: none, the default).
type HookApproval struct {
	Source      string          `json:"source"`
	Hash        string          `json:"hash"`
	Permissions *schema.Sandbox `json:"permissions,omitempty"`
	// Code is an extension hook's tree hash without its manifest's
	// permissions: a later tree that differs only in narrower permissions
	// keeps the approval.
	Code       string    `json:"code,omitempty"`
	ApprovedAt time.Time `json:"approvedAt"`
	ApprovedBy string    `json:"approvedBy"`
}

// TrustedHooks is trusted-hooks.json.
type TrustedHooks struct {
	Version   int            `json:"version"`
	Approvals []HookApproval `json:"approvals"`
}

// Lookup returns the approval recorded for source.
func (t *TrustedHooks) Lookup(source string) (HookApproval, bool) {
	for _, a := range t.Approvals {
		if a.Source == source {
			return a, true
		}
	}
	return HookApproval{}, false
}

// LoadTrustedHooks reads path; a missing file holds no approvals.
func LoadTrustedHooks(path string) (*TrustedHooks, error) {
	t := &TrustedHooks{Version: TrustVersion}
	if _, err := ReadJSON(path, t); err != nil {
		return nil, fmt.Errorf("read hook approvals: %w", err)
	}
	return t, nil
}

// ApproveHooks records approvals, replacing earlier ones for the same
// source. It is safe against concurrent ollm processes.
func ApproveHooks(path string, approvals ...HookApproval) error {
	return UpdateJSON(path, PermPrivate, func(t *TrustedHooks) error {
		t.Version = TrustVersion
		for _, a := range approvals {
			t.Approvals = replaceApproval(t.Approvals, a)
		}
		return nil
	})
}

func replaceApproval(list []HookApproval, a HookApproval) []HookApproval {
	for i := range list {
		if list[i].Source == a.Source {
			list[i] = a
			return list
		}
	}
	return append(list, a)
}

// RevokeHooks removes the approvals of the given sources and reports how
// many it removed.
func RevokeHooks(path string, sources ...string) (int, error) {
	n := 0
	err := UpdateJSON(path, PermPrivate, func(t *TrustedHooks) error {
		t.Version = TrustVersion
		kept := t.Approvals[:0]
		for _, a := range t.Approvals {
			if contains(sources, a.Source) {
				n++
				continue
			}
			kept = append(kept, a)
		}
		t.Approvals = kept
		return nil
	})
	return n, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// WorkspaceApproval records that a user approved a workspace profile:
// the digest of its ollm.cue, ollm.lock and .mcp.json.
type WorkspaceApproval struct {
	Root       string    `json:"root"`
	Digest     string    `json:"digest"`
	ApprovedAt time.Time `json:"approvedAt"`
	ApprovedBy string    `json:"approvedBy"`
	// Earlier are the digests the root was approved at before, newest
	// first, at most MaxEarlierApprovals. They approve nothing by
	// themselves: `ollm profile rollback` approves again a generation
	// built from one of them (EarlierApproval), and only that.
	Earlier []EarlierApproval `json:"earlier,omitempty"`
}

// EarlierApproval is a digest a workspace was approved at before.
type EarlierApproval struct {
	Digest     string    `json:"digest"`
	ApprovedAt time.Time `json:"approvedAt"`
	ApprovedBy string    `json:"approvedBy"`
}

// MaxEarlierApprovals bounds the earlier digests kept per workspace.
const MaxEarlierApprovals = 16

// TrustedWorkspaces is trusted-workspaces.json.
type TrustedWorkspaces struct {
	Version    int                 `json:"version"`
	Workspaces []WorkspaceApproval `json:"workspaces"`
}

// LoadTrustedWorkspaces reads path; a missing file approves nothing.
func LoadTrustedWorkspaces(path string) (*TrustedWorkspaces, error) {
	t := &TrustedWorkspaces{Version: TrustVersion}
	if _, err := ReadJSON(path, t); err != nil {
		return nil, fmt.Errorf("read workspace approvals: %w", err)
	}
	return t, nil
}

// Approved reports whether root is approved at digest.
func (t *TrustedWorkspaces) Approved(root, digest string) bool {
	for _, w := range t.Workspaces {
		if w.Root == root && w.Digest == digest {
			return true
		}
	}
	return false
}

// EarlierApproval returns the approval root had at digest: the current
// one or an earlier one. A digest never approved for root is not found,
// whatever other workspace was approved at it.
func (t *TrustedWorkspaces) EarlierApproval(root, digest string) (EarlierApproval, bool) {
	if digest == "" {
		return EarlierApproval{}, false
	}
	for _, w := range t.Workspaces {
		if w.Root != root {
			continue
		}
		if w.Digest == digest {
			return EarlierApproval{Digest: w.Digest, ApprovedAt: w.ApprovedAt, ApprovedBy: w.ApprovedBy}, true
		}
		for _, e := range w.Earlier {
			if e.Digest == digest {
				return e, true
			}
		}
	}
	return EarlierApproval{}, false
}

// Find returns the approval recorded for root.
func (t *TrustedWorkspaces) Find(root string) (WorkspaceApproval, bool) {
	for _, w := range t.Workspaces {
		if w.Root == root {
			return w, true
		}
	}
	return WorkspaceApproval{}, false
}

// ApproveWorkspace records a, replacing an earlier approval of its root;
// the replaced digest joins the root's Earlier list (newest first, at
// most MaxEarlierApprovals, a's own digest left out).
func ApproveWorkspace(path string, a WorkspaceApproval) error {
	return UpdateJSON(path, PermPrivate, func(t *TrustedWorkspaces) error {
		t.Version = TrustVersion
		for i := range t.Workspaces {
			if old := t.Workspaces[i]; old.Root == a.Root {
				earlier := append([]EarlierApproval{{Digest: old.Digest, ApprovedAt: old.ApprovedAt, ApprovedBy: old.ApprovedBy}}, old.Earlier...)
				a.Earlier = nil
				for _, e := range earlier {
					if e.Digest != "" && e.Digest != a.Digest && len(a.Earlier) < MaxEarlierApprovals && !slices.ContainsFunc(a.Earlier, func(x EarlierApproval) bool { return x.Digest == e.Digest }) {
						a.Earlier = append(a.Earlier, e)
					}
				}
				t.Workspaces[i] = a
				return nil
			}
		}
		a.Earlier = nil
		t.Workspaces = append(t.Workspaces, a)
		return nil
	})
}

// RevokeWorkspace removes the approval of root and reports whether there
// was one.
func RevokeWorkspace(path, root string) (bool, error) {
	found := false
	err := UpdateJSON(path, PermPrivate, func(t *TrustedWorkspaces) error {
		t.Version = TrustVersion
		kept := t.Workspaces[:0]
		for _, w := range t.Workspaces {
			if w.Root == root {
				found = true
				continue
			}
			kept = append(kept, w)
		}
		t.Workspaces = kept
		return nil
	})
	return found, err
}

// WorkspaceDigest is the digest a workspace is approved by: sha256 over
// everything the workspace brings - ollm.cue, ollm.lock, .mcp.json,
// .claude/settings.json and settings.local.json (name and bytes; a missing
// file counts as distinct from an empty one), the .ollm/extensions,
// .gemini/commands, .claude/commands and .claude/output-styles trees and
// the local paths its profile names inside it (every entry's relative
// path, type, mode and contents; a symlink by its target). It returns ""
// when the workspace brings none of them: there is nothing to approve, and
// an empty digest is never approved.
func WorkspaceDigest(w Workspace, local ...string) (string, error) {
	h := sha256.New()
	any := false
	for _, p := range w.trustFiles() {
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(w.Root, p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(h, "file\x00%s\x00missing\x00", rel)
			continue
		case err != nil:
			return "", fmt.Errorf("workspace digest: %w", err)
		}
		any = true
		fmt.Fprintf(h, "file\x00%s\x00%d\x00", rel, len(data))
		h.Write(data)
	}
	trees := append([]string{w.Extensions(), w.GeminiCommands(), w.ClaudeCommands()}, local...)
	for _, t := range trees {
		n, err := digestTree(h, w.Root, t)
		if err != nil {
			return "", fmt.Errorf("workspace digest: %w", err)
		}
		fmt.Fprintf(h, "end\x00")
		any = any || n > 0
	}
	// Claude Code's output styles change the system prompt. Hashed only
	// when the folder has entries, so digests approved before it was
	// counted stay the same.
	styles := sha256.New()
	if n, err := digestTree(styles, w.Root, w.ClaudeOutputStyles()); err != nil {
		return "", fmt.Errorf("workspace digest: %w", err)
	} else if n > 0 {
		fmt.Fprintf(h, "tree\x00.claude/output-styles\x00")
		h.Write(styles.Sum(nil))
		any = true
	}
	if !any {
		return "", nil
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// trustFiles are the single files of a workspace that decide what it runs.
func (w Workspace) trustFiles() []string {
	return []string{w.Profile(), w.Lock(), w.MCPJSON(),
		filepath.Join(w.Root, ".claude", "settings.json"), filepath.Join(w.Root, ".claude", "settings.local.json")}
}

// digestTree writes every entry under dir (a file or a directory) into h
// (HashTree, within DefaultTreeLimits) and returns how many it wrote. A
// missing dir writes nothing.
func digestTree(h io.Writer, root, dir string) (int, error) {
	return HashTree(h, root, dir, DefaultTreeLimits)
}
