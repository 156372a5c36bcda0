package resolver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// Events reports progress. Every field is optional; the resolver never
// prints.
type Events struct {
	// Progress: done of total sources handled, name is the current one.
	Progress func(done, total int, name string)
	// Fetching: a source is being fetched (it is not in the store yet).
	Fetching func(kind Kind, name, source, ref string)
	// Fetched: a source is in the store.
	Fetched func(kind Kind, name, commit, hash string)
	// RefMoved: the ref now names another commit than the lock's, which
	// is kept; `ollm ext update` moves it.
	RefMoved func(kind Kind, name, ref, locked, now string)
	// Corrupt: a store entry no longer matches its hash; it is fetched again.
	Corrupt func(name, dir string)
	// Recovered: leftovers of an interrupted run were removed.
	Recovered func(n int)
	// Pinned: a package version was resolved.
	Pinned func(server, pkg, version string)
}

// Resolver computes locks and fills the store. Its fields are the side
// effects it may use.
type Resolver struct {
	Git      Git
	Store    *store.CAS
	Versions Versions
	Events   Events
}

// Request says what to resolve.
type Request struct {
	Wants []Want
	Old   *schema.Lock // the current lock, nil when there is none; not modified
	// Base is the directory relative local paths are resolved against
	// (the directory of ollm.cue).
	Base string
	// Locked: use the lock as is; a source the lock does not satisfy is
	// an error (the caller checks Stale first).
	Locked bool
	// Update names the sources to resolve afresh ("*" for all); the
	// others keep their locked commit.
	Update []string
	// DryRun resolves refs but fetches and installs nothing; new entries
	// have no hash.
	DryRun bool
	// Offline fetches nothing: a source or package that would need the
	// network (a new or moved git source, one missing from the store, an
	// unpinned package) fails with ErrNeedsFetch. Automatic applies use it.
	Offline bool
}

// ErrNeedsFetch is returned by an Offline resolution that would need the
// network.
var ErrNeedsFetch = errors.New("needs a fetch")

func (q Request) updating(name string) bool {
	for _, u := range q.Update {
		if u == "*" || u == name {
			return true
		}
	}
	return false
}

// ErrChangedSinceLock marks a local source whose files no longer hash to
// the lock under --locked: a stale lock, like StaleError.
var ErrChangedSinceLock = errors.New("changed since it was locked")

// SourceError is a source that could not be resolved or fetched. It
// names the extension, the source and ref, and the command that fixes it.
type SourceError struct {
	Kind   Kind
	Name   string
	Source string
	Ref    string
	Err    error
	Fix    string
}

func (e *SourceError) Error() string {
	where := e.Source
	if e.Ref != "" {
		where += "@" + e.Ref
	}
	msg := fmt.Sprintf("%s %s (%s): %v", e.Kind, e.Name, where, e.Err)
	if e.Fix != "" {
		msg += "\n  fix: " + e.Fix
	}
	return msg
}
func (e *SourceError) Unwrap() error { return e.Err }

// Ensure resolves every want of one kind into lock entries, sorted by
// name, fetching into the store what is missing. It never changes req.Old.
func (r *Resolver) Ensure(ctx context.Context, req Request, kind Kind) ([]schema.LockedSource, error) {
	old := CopyLock(req.Old)
	locked := old.Extensions
	if kind == KindProfile {
		locked = old.Profiles
	}
	wants := filterWants(req.Wants, kind)
	var out []schema.LockedSource
	for i, w := range wants {
		if r.Events.Progress != nil {
			r.Events.Progress(i, len(wants), w.Name)
		}
		prev := findSource(locked, w.Name)
		e, err := r.ensureOne(ctx, req, w, prev)
		if err == nil && kind == KindExtension {
			e, err = r.pinPermissions(req, w, e, prev)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if r.Events.Progress != nil && len(wants) > 0 {
		r.Events.Progress(len(wants), len(wants), "")
	}
	return out, nil
}

func (r *Resolver) ensureOne(ctx context.Context, req Request, w Want, old *schema.LockedSource) (schema.LockedSource, error) {
	e := w.request()
	keep := old != nil && sameRequest(*old, e) && old.Hash != "" && !req.updating(w.Name)
	if req.Locked && !keep {
		return e, &SourceError{Kind: w.Kind, Name: w.Name, Source: e.Source, Ref: e.Ref, Err: errors.New("not satisfied by ollm.lock"), Fix: "run `ollm profile lock` and commit ollm.lock"}
	}
	if keep && e.Type == schema.SourceGit {
		e.Commit, e.Hash = old.Commit, old.Hash
		if !IsCommit(e.Commit) {
			return e, r.sourceErr(w, e, fmt.Errorf("ollm.lock pins no valid commit (%q)", e.Commit), "run `ollm ext update "+w.Name+"`")
		}
	}
	if e.Type == schema.SourcePath {
		return r.ensurePath(req, w, e, old, keep)
	}
	url := GitURL(e.Source, req.Base)
	if req.Offline && !keep {
		return e, r.sourceErr(w, e, ErrNeedsFetch, "run `ollm profile apply`")
	}
	if !keep {
		commit, err := r.Git.Resolve(ctx, url, e.Ref)
		if err != nil {
			return e, r.sourceErr(w, e, err, fixFor(w, err))
		}
		e.Commit = commit
		if old != nil && sameRequest(*old, e) && old.Commit == commit {
			e.Hash = old.Hash // same commit as before: the content must match too
		}
	}
	if req.DryRun {
		return e, nil
	}
	return r.install(ctx, w, e, url, keep, req.Offline)
}

var scpLike = lazyre.New(`^[A-Za-z0-9._-]+@[A-Za-z0-9._-]+:`)

// GitURL is the URL go-git fetches: URLs and scp-like addresses as
// written, local repository paths made absolute against base (the
// directory of ollm.cue).
func GitURL(source, base string) string {
	if strings.Contains(source, "://") || scpLike.MatchString(source) || filepath.IsAbs(source) || base == "" {
		return source
	}
	return filepath.Join(base, filepath.FromSlash(source))
}

// install makes sure entry e is in the store, fetching it if needed.
func (r *Resolver) install(ctx context.Context, w Want, e schema.LockedSource, url string, keep, offline bool) (schema.LockedSource, error) {
	if e.Hash != "" {
		dir, ok, corrupt, err := r.Store.Has(e.Hash, e.Name)
		if err != nil {
			return e, r.sourceErr(w, e, err, "run `ollm ext update "+w.Name+"`")
		}
		if ok {
			return e, nil
		}
		if corrupt && r.Events.Corrupt != nil {
			r.Events.Corrupt(e.Name, dir)
		}
	}
	if offline {
		return e, r.sourceErr(w, e, ErrNeedsFetch, "run `ollm profile apply`")
	}
	if r.Events.Fetching != nil {
		r.Events.Fetching(w.Kind, e.Name, e.Source, e.Ref)
	}
	t, err := r.Store.NewTemp()
	if err != nil {
		return e, err
	}
	if err := r.export(ctx, w.Kind, url, e.Commit, e, t.Tree()); err != nil {
		t.Discard()
		var re *RefError
		if keep && errors.As(err, &re) && re.Ref == e.Commit {
			return e, r.rewritten(w, e, url)
		}
		return e, r.sourceErr(w, e, err, fixFor(w, err))
	}
	if keep && e.Ref != "" && !IsCommit(e.Ref) {
		r.checkMoved(ctx, w, e, url)
	}
	return r.commit(w, e, t)
}

// ErrHistoryRewritten is a locked commit its source no longer has.
var ErrHistoryRewritten = errors.New("history rewritten")

// rewritten is the error for a locked commit that is gone from its
// source: the lock is right about what was reviewed, the source changed
// under it, so only an explicit update may move it.
func (r *Resolver) rewritten(w Want, e schema.LockedSource, url string) error {
	ref := e.Ref
	if ref == "" {
		ref = "HEAD"
	}
	fix := fmt.Sprintf("run `ollm ext update %s` to lock what %s names now, review the change, and commit ollm.lock", w.Name, ref)
	if w.Kind == KindProfile {
		fix = fmt.Sprintf("run `ollm profile lock --update %s` to lock what %s names now, review the change, and commit ollm.lock", w.Name, ref)
	}
	err := fmt.Errorf("%w: ollm.lock pins commit %s, which %s no longer has (a force-push or a deleted branch or tag)", ErrHistoryRewritten, short(e.Commit), url)
	return r.sourceErr(w, e, err, fix)
}

// checkMoved reports a ref that names another commit now than when it
// was locked. The lock wins.
func (r *Resolver) checkMoved(ctx context.Context, w Want, e schema.LockedSource, url string) {
	now, err := r.Git.Resolve(ctx, url, e.Ref)
	if err == nil && now != e.Commit && r.Events.RefMoved != nil {
		r.Events.RefMoved(w.Kind, e.Name, e.Ref, e.Commit, now)
	}
}

// commit checks the fetched tree (manifest, name, hash) and moves it into
// the store.
func (r *Resolver) commit(w Want, e schema.LockedSource, t *store.Temp) (schema.LockedSource, error) {
	if err := checkTree(w, t.Tree()); err != nil {
		t.Discard()
		return e, r.sourceErr(w, e, err, fixFor(w, err))
	}
	_, hash, err := r.Store.Commit(t, e.Name, e.Hash)
	var ce *store.ChecksumError
	if errors.As(err, &ce) {
		ce.Source, ce.Ref, ce.Commit = e.Source, e.Ref, e.Commit
		if w.Kind == KindProfile {
			ce.Fix = "ollm profile lock --update " + w.Name
		}
		return e, ce
	}
	if err != nil {
		return e, r.sourceErr(w, e, err, "")
	}
	e.Hash = hash
	if r.Events.Fetched != nil {
		r.Events.Fetched(w.Kind, e.Name, e.Commit, e.Hash)
	}
	return e, nil
}

// pathDir is the directory of a path source: Source (relative to base,
// the workspace root) and Subdir.
func pathDir(base string, e schema.LockedSource) string {
	dir := e.Source
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(base, dir)
	}
	if e.Subdir != "" {
		dir = filepath.Join(dir, filepath.FromSlash(e.Subdir))
	}
	return dir
}

// ChangedPaths lists the path sources whose directory no longer hashes as
// lock pins them (or cannot be read): `apply --locked` refuses them.
func ChangedPaths(base string, lock *schema.Lock) []Change {
	if lock == nil {
		return nil
	}
	var out []Change
	for _, sec := range []struct {
		kind    Kind
		entries []schema.LockedSource
	}{{KindProfile, lock.Profiles}, {KindExtension, lock.Extensions}} {
		for _, e := range sec.entries {
			if e.Type != "path" {
				continue
			}
			c := Change{Kind: Changed, Section: sec.kind, Name: e.Name, Source: e.Source}
			if h, err := store.HashDir(pathDir(base, e)); err != nil {
				c.Reason = err.Error()
			} else if h != e.Hash {
				c.Old, c.New, c.Reason = e.Hash, h, "the directory changed since it was locked"
			} else {
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// ensurePath handles a local directory source: its files are hashed and
// copied into the store. With keep, a changed directory is an error only
// under --locked; otherwise the lock follows the directory.
func (r *Resolver) ensurePath(req Request, w Want, e schema.LockedSource, old *schema.LockedSource, keep bool) (schema.LockedSource, error) {
	src := pathDir(req.Base, e)
	hash, err := store.HashDir(src)
	if err != nil {
		return e, r.sourceErr(w, e, err, "check the path in ollm.cue")
	}
	if keep && hash != old.Hash && req.Locked {
		return e, r.sourceErr(w, e, fmt.Errorf("the directory %w (%s, now %s)", ErrChangedSinceLock, old.Hash, hash), "run `ollm profile lock` and commit ollm.lock")
	}
	e.Hash = hash
	if req.DryRun {
		return e, nil
	}
	if _, ok, _, err := r.Store.Has(hash, e.Name); err == nil && ok {
		return e, nil
	}
	if r.Events.Fetching != nil {
		r.Events.Fetching(w.Kind, e.Name, e.Source, "")
	}
	t, err := r.Store.NewTemp()
	if err != nil {
		return e, err
	}
	if err := copyTree(src, t.Tree()); err != nil {
		t.Discard()
		return e, r.sourceErr(w, e, err, "")
	}
	// The copy must hash as the directory did: anything else means it
	// changed while being copied.
	return r.commit(w, e, t)
}

func (r *Resolver) sourceErr(w Want, e schema.LockedSource, err error, fix string) error {
	return &SourceError{Kind: w.Kind, Name: w.Name, Source: e.Source, Ref: e.Ref, Err: err, Fix: fix}
}

// fixFor suggests the command that fixes a fetch error.
func fixFor(w Want, err error) string {
	var (
		re *RefError
		me *profiles.ManifestError
	)
	switch {
	case errors.As(err, &re):
		return fmt.Sprintf("set an existing ref for %s in ollm.cue, or run `ollm ext update %s` if the locked commit is gone", w.Name, w.Name)
	case errors.As(err, &me):
		return fmt.Sprintf("fix %s in the extension's source (or pin a ref whose manifest is valid), then run the command again; nothing was written", me.File)
	case errors.Is(err, ErrPluginSource):
		return "drop plugin from this source in ollm.cue: a team profile or a local path cannot name a marketplace entry"
	case errors.Is(err, ErrNoManifest), errors.Is(err, ErrNameMismatch):
		return fmt.Sprintf("point extensions.sources.%s at the extension's folder (subdir) or rename it to the manifest's name", w.Name)
	default:
		return "check the URL and your network or credentials, then run `ollm profile apply`"
	}
}

var (
	// ErrNoManifest is a fetched tree without the file its kind needs: a
	// manifest for an extension, an ollm.cue for a team profile.
	ErrNoManifest = errors.New("no manifest")
	// ErrNameMismatch is a manifest that names the extension otherwise
	// than the profile does.
	ErrNameMismatch = errors.New("name mismatch")
)

// checkTree makes sure a fetched tree is what its kind needs: an
// extension has a manifest that validates (profiles.ValidateManifest, the
// loader's own check) and whose name is the one the profile uses; a team
// profile has an ollm.cue. It runs before the tree enters the store.
func checkTree(w Want, dir string) error {
	if w.Kind == KindProfile {
		if _, err := os.Stat(filepath.Join(dir, store.ProfileFileName)); err != nil {
			return fmt.Errorf("%w: no %s at the top of the team profile's folder", ErrNoManifest, store.ProfileFileName)
		}
		return nil
	}
	file, m, err := validateManifest(dir)
	if err != nil {
		return err
	}
	if w.Source.Plugin == "" && profiles.ClaimsMarketplaceEntry(dir) {
		return &profiles.ManifestError{File: profiles.ClaudePluginFile, Diags: []profiles.Diagnostic{{Pos: profiles.ClaudePluginFile, Path: "x-ollm-marketplace",
			Message: "x-ollm-marketplace is written by ollm for a plugin its marketplace entry defines; this plugin was not added that way"}}}
	}
	if m.Name != w.Name {
		return fmt.Errorf("%w: its %s names it %q but the profile calls it %q", ErrNameMismatch, file, m.Name, w.Name)
	}
	return nil
}

// validateManifest is profiles.ValidateManifest with a missing manifest
// as ErrNoManifest.
func validateManifest(dir string) (string, schema.Manifest, error) {
	file, m, err := profiles.ValidateManifest(dir)
	if errors.Is(err, profiles.ErrNoManifest) {
		return "", m, fmt.Errorf("%w: %w", ErrNoManifest, err)
	}
	return file, m, err
}

// ManifestName validates the manifest of an extension tree and returns
// the name it declares.
func ManifestName(dir string) (string, error) {
	_, m, err := validateManifest(dir)
	return m.Name, err
}

// copyTree copies the regular files and symbolic links of src (without a
// top-level .git) into dst, keeping executable bits (the store refuses a
// link that leads out of the tree when it hashes it).
func copyTree(src, dst string) error {
	if err := copyFiles(src, dst); err != nil {
		return err
	}
	return store.CheckLinks(dst)
}

func copyFiles(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(t, filepath.Join(dst, rel))
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file (special files are not allowed in an extension)", rel)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return copyFile(p, filepath.Join(dst, rel), fi.Mode().Perm()&0o111 != 0)
	})
}

func copyFile(from, to string, exec bool) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	mode := os.FileMode(0o644)
	if exec {
		mode = 0o755
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(to, mode)
}

// EnsurePackages pins the version of every unpinned package. A package the
// lock already pins for the same server keeps its version unless updated.
func (r *Resolver) EnsurePackages(ctx context.Context, req Request, wants []PackageWant) ([]schema.LockedPackage, error) {
	old := CopyLock(req.Old)
	var out []schema.LockedPackage
	for _, p := range wants {
		if o := findPackage(old.Packages, p.Server, p.Runner, p.Package); o != nil && o.Version != "" && !req.updating(p.Server) {
			out = append(out, *o)
			continue
		}
		if req.Locked {
			return nil, &SourceError{Kind: KindPackage, Name: p.Server, Source: p.Runner + " " + p.Package, Err: errors.New("not pinned by ollm.lock"), Fix: "run `ollm profile lock` and commit ollm.lock"}
		}
		if req.Offline {
			return nil, &SourceError{Kind: KindPackage, Name: p.Server, Source: p.Runner + " " + p.Package, Err: ErrNeedsFetch, Fix: "run `ollm profile apply`"}
		}
		if r.Versions == nil {
			return nil, &SourceError{Kind: KindPackage, Name: p.Server, Source: p.Runner + " " + p.Package, Err: errors.New("no version resolver configured")}
		}
		v, err := r.Versions.Version(ctx, p.Runner, p.Package)
		if err != nil {
			return nil, &SourceError{Kind: KindPackage, Name: p.Server, Source: p.Runner + " " + p.Package, Err: err,
				Fix: "pin an exact version in the server's args (e.g. pkg@1.2.3), or make the package registry reachable"}
		}
		v = strings.TrimPrefix(strings.TrimSpace(v), "v")
		if r.Events.Pinned != nil {
			r.Events.Pinned(p.Server, p.Package, v)
		}
		out = append(out, schema.LockedPackage{Server: p.Server, Runner: p.Runner, Package: p.Package, Version: v})
	}
	return out, nil
}
