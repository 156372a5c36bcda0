package resolver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ollm/ollm/schema"
)

// ManifestPermissions reads the permissions an extension's manifest.json
// declares (nil: none). A gemini-extension.json declares none: the Gemini
// CLI format has no such field. The loader validates the whole manifest
// through the CUE schema; this reads only what the lock pins.
func ManifestPermissions(dir string) (*schema.Sandbox, error) {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m struct {
		Permissions *schema.Sandbox `json:"permissions"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest.json: permissions: %v", err)
	}
	return m.Permissions.Declared(), nil
}

// pinPermissions records in e the permissions of the manifest it resolved
// to, read from its store entry (from the local directory in a dry run; a
// dry run's new git entry is not fetched and records none). Under
// --locked a lock that records other permissions is stale, like a changed
// hash.
func (r *Resolver) pinPermissions(req Request, w Want, e schema.LockedSource, old *schema.LockedSource) (schema.LockedSource, error) {
	dir := r.entryDir(req, e)
	if dir == "" {
		return e, nil
	}
	p, err := ManifestPermissions(dir)
	if err != nil {
		return e, r.sourceErr(w, e, err, "fix the permissions in the extension's manifest.json (see docs/extensions.md)")
	}
	e.Permissions = p
	if req.Locked && old != nil && !schema.SamePermissions(old.Permissions, p) {
		return e, r.sourceErr(w, e, fmt.Errorf("the manifest's permissions %w (ollm.lock: %s, manifest: %s)",
			ErrChangedSinceLock, PermissionsString(old.Permissions), PermissionsString(p)), "run `ollm profile lock` and commit ollm.lock")
	}
	return e, nil
}

// entryDir is the directory holding e's files: its store entry, or the
// local directory of a path source not installed in a dry run.
func (r *Resolver) entryDir(req Request, e schema.LockedSource) string {
	if e.Hash != "" {
		if dir, err := r.Store.Path(e.Hash, e.Name); err == nil {
			if _, err := os.Stat(dir); err == nil {
				return dir
			}
		}
	}
	if req.DryRun && e.Type == schema.SourcePath {
		return pathDir(req.Base, e)
	}
	return ""
}

// PermissionsString shows permissions as the lock writes them; "none"
// for nil.
func PermissionsString(p *schema.Sandbox) string {
	if p.Declared() == nil {
		return "none"
	}
	b, err := json.Marshal(p)
	if err != nil {
		return "?"
	}
	return string(b)
}

// changedPermissions lists the locked extensions whose store entry's
// manifest declares other permissions than the lock records (dirs maps
// entry names to their checked store directories).
func changedPermissions(lock *schema.Lock, dirs map[string]string) []Change {
	if lock == nil {
		return nil
	}
	var out []Change
	for _, e := range lock.Extensions {
		dir, ok := dirs[e.Name]
		if !ok {
			continue
		}
		p, err := ManifestPermissions(dir)
		c := Change{Kind: Changed, Section: KindExtension, Name: e.Name, Source: e.Source, Ref: e.Ref}
		switch {
		case err != nil:
			c.Reason = err.Error()
		case !schema.SamePermissions(e.Permissions, p):
			c.Old, c.New = "permissions "+PermissionsString(e.Permissions), "permissions "+PermissionsString(p)
			c.Reason = "the manifest's permissions differ from the lock's"
		default:
			continue
		}
		out = append(out, c)
	}
	return out
}
