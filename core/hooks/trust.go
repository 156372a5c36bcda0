package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
	"golang.org/x/mod/sumdb/dirhash"
)

// TrustState is the trust decision for one hook.
type TrustState string

// Trust states.
const (
	Trusted    TrustState = "trusted"    // its scope needs no approval
	Approved   TrustState = "approved"   // approved with this hash
	Unapproved TrustState = "unapproved" // never approved
	Changed    TrustState = "changed"    // approved, but its content changed or its permissions widened since
)

// Runs reports whether a hook in state s may run.
func (s TrustState) Runs() bool { return s == Trusted || s == Approved }

// NeedsApproval reports whether hooks from scope need an approval.
// Builtin and user hooks are the user's own, and so are extensions in a
// directory a trusted layer declared. Workspace, downloaded (store) and
// --ext extensions run only once approved, unless trustWorkspace is set
// (which the profile loader honours only from the user profile or a
// flag). An unknown scope needs approval.
func NeedsApproval(scope schema.Scope, trustWorkspace bool) bool {
	switch scope {
	case schema.ScopeBuiltin, schema.ScopeUser, schema.ScopeDirectory:
		return false
	case schema.ScopeWorkspace, schema.ScopeStore, schema.ScopeFlag:
		return !trustWorkspace
	}
	return true
}

// Decide is the trust decision: scope first, then the stored approval
// for the hook's stable id compared with its current hash.
func Decide(scope schema.Scope, trustWorkspace bool, hash, approvedHash string, haveApproval bool) TrustState {
	switch {
	case !NeedsApproval(scope, trustWorkspace):
		return Trusted
	case !haveApproval:
		return Unapproved
	case approvedHash != hash:
		return Changed
	}
	return Approved
}

// Approval is one recorded approval: the content hash and the permissions
// the hook declared when it was approved (nil: none, the defaults).
type Approval struct {
	Hash        string
	Permissions *schema.Sandbox
	// Code is CodeHash of an extension hook's tree when it was approved
	// ("" for others and for approvals recorded before it existed).
	Code string
}

// DecideHook is the trust decision for h: Decide on the hash, and then
// the permissions. An approval holds only while h's permissions are
// within the approved ones (Covers), so a widening asks again and a
// narrowing does not.
//
// An extension whose tree changed only in its manifest's permissions
// keeps the approval when they narrowed: the approval's Code (the tree
// hash without the permissions) still matches and Covers holds.
func DecideHook(h *Hook, trustWorkspace bool, hash string, a Approval, found bool) TrustState {
	st := Decide(h.Scope, trustWorkspace, hash, a.Hash, found)
	if st == Changed && a.Hash != hash && a.Code != "" && h.Extension != "" && h.Dir != "" {
		if code, err := CodeHash(h.Dir); err == nil && code == a.Code {
			st = Approved
		}
	}
	if st == Approved && !a.Covers(h.Sandbox) {
		return Changed
	}
	return st
}

// CodeHash is the h1 hash of an extension tree with the permissions left
// out of its manifest.json: what the code is, whatever it asks for. Any
// other change to the manifest (a hook's command, a setting) changes it.
func CodeHash(dir string) (string, error) {
	files, err := dirhash.DirFiles(dir, "")
	if err != nil {
		return "", fmt.Errorf("hash extension directory %s: %w", dir, err)
	}
	open := func(name string) (io.ReadCloser, error) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if name != "manifest.json" {
			return os.Open(path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil {
			return io.NopCloser(bytes.NewReader(data)), nil // not JSON: hashed as it is
		}
		delete(m, "permissions")
		out, err := json.Marshal(m) // keys sorted: formatting does not count
		if err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(out)), nil
	}
	h, err := dirhash.Hash1(files, open)
	if err != nil {
		return "", fmt.Errorf("hash extension directory %s: %w", dir, err)
	}
	return h, nil
}

// Covers reports whether the approval grants everything perms asks for:
// both are filled with the built-in hook defaults (workspace-write with
// network) and compared by schema.Sandbox.Within. An approval recorded
// without permissions covers the defaults only.
func (a Approval) Covers(perms schema.Sandbox) bool {
	var approved schema.Sandbox
	if a.Permissions != nil {
		approved = *a.Permissions
	}
	d := schema.HookSandboxDefaults()
	return perms.WithDefaults(d).Within(approved.WithDefaults(d))
}

// HashDir is the h1 hash of an extension tree, as the lock records it.
func HashDir(dir string) (string, error) {
	h, err := dirhash.HashDir(dir, "", dirhash.Hash1)
	if err != nil {
		return "", fmt.Errorf("hash extension directory %s: %w", dir, err)
	}
	return h, nil
}

// LooseHash is the hash of a hook that is not part of an extension:
// sha256 over its command line, the contents of every file a word of it
// names, and the whole tree of every directory inside dir it can run code
// from (store.RunDirs: the directory of each script it names, also inside
// `sh -c "..."` or inline code, and dir itself for `python3 -m`, `make`
// and the like). Relative names are taken from dir. Editing the script, a
// file it sources or imports beside it, or the command asks for approval
// again; a directory above store.DefaultTreeLimits is an error.
func LooseHash(def schema.Hook, dir string) (string, error) {
	hs := sha256.New()
	fmt.Fprintf(hs, "command\x00%s\x00", def.Command)
	for _, a := range def.Args {
		fmt.Fprintf(hs, "arg\x00%s\x00", a)
	}
	// what runs and when: unset, they leave the hash of older hooks as it was
	for _, f := range [][2]string{{"prompt", def.Prompt}, {"shell", def.Shell}, {"if", def.If}} {
		if f[1] != "" {
			fmt.Fprintf(hs, "%s\x00%s\x00", f[0], f[1])
		}
	}
	for _, tok := range scriptTokens(def, dir) {
		if err := hashFile(hs, tok, dir); err != nil {
			return "", err
		}
	}
	if dir != "" {
		real := dir
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			real = r // RunDirs lists real paths
		}
		for _, d := range store.RunDirs(append([]string{def.Command}, def.Args...), dir, dir) {
			rel, _ := filepath.Rel(real, d)
			fmt.Fprintf(hs, "tree\x00%s\x00", filepath.ToSlash(rel))
			if _, err := store.HashTree(hs, d, d, store.DefaultTreeLimits); err != nil {
				return "", fmt.Errorf("hash the scripts of the hook: %w", err)
			}
		}
	}
	return "sha256:" + hex.EncodeToString(hs.Sum(nil)), nil
}

var unquote = strings.NewReplacer(`"`, "", `'`, "")

// scriptTokens lists the words of the command line that may name files.
func scriptTokens(def schema.Hook, dir string) []string {
	expand := func(k string) string {
		switch k {
		case "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "OLLM_PROJECT_DIR", "OLLM_EXTENSION_DIR":
			return dir
		}
		return ""
	}
	words := strings.Fields(def.Command)
	words = append(words, def.Args...)
	out := make([]string, 0, len(words))
	for _, w := range words {
		w = unquote.Replace(os.Expand(w, expand))
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

func hashFile(hs io.Writer, tok, dir string) error {
	p := tok
	if !filepath.IsAbs(p) {
		if dir == "" {
			return nil
		}
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil // not a file: an interpreter name, a flag, a word
	}
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("hash hook script %s: %w", p, err)
	}
	defer f.Close()
	fmt.Fprintf(hs, "file\x00%s\x00%d\x00%o\x00", tok, fi.Size(), fi.Mode().Perm()&0o111)
	if _, err := io.Copy(hs, f); err != nil {
		return fmt.Errorf("hash hook script %s: %w", p, err)
	}
	return nil
}
