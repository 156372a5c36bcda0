package resolver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// StaleError is a lock that does not satisfy the profile under --locked.
type StaleError struct {
	File    string
	Missing bool
	Changes []Change
}

func (e *StaleError) Error() string {
	if e.Missing {
		return fmt.Sprintf("%s does not exist and --locked forbids creating it\n  fix: run `ollm profile lock` and commit ollm.lock", e.File)
	}
	msg := fmt.Sprintf("%s is out of date with the profile (--locked):", e.File)
	for _, c := range e.Changes {
		msg += "\n  " + c.String()
	}
	return msg + "\n  fix: run `ollm profile lock` and commit ollm.lock"
}

// Applier runs `ollm profile apply` and its relatives: resolve the
// profile, lock it, fill the store and record a generation.
type Applier struct {
	Resolver *Resolver
	// Options are the loader options: Home, Workspace, Ext, Model. Locked
	// and Teams are filled in by the applier.
	Options profiles.Options
	Load    func(profiles.Options) (*schema.Resolved, error) // nil: profiles.Load
	Now     func() time.Time                                 // nil: time.Now

	full profiles.Options // the last resolve's loader options
}

// ApplyOptions select the mode.
type ApplyOptions struct {
	Locked       bool     // use ollm.lock as is; fail when missing or stale
	DryRun       bool     // plan only: write nothing, fetch nothing
	Update       []string // names to resolve afresh; "*" for all
	NoGeneration bool     // `profile lock`: write the lock only
	// LockHeld: the caller holds the workspace lock (LockWorkspace), as
	// `ext add` does around its edit of ollm.cue, so Apply does not take it.
	LockHeld bool
	// Offline fetches nothing (Request.Offline): an apply that would need
	// the network fails with ErrNeedsFetch and writes nothing.
	Offline bool
}

// LockWorkspace takes the lock that serialises every read-modify-write of
// the workspace's ollm.cue and ollm.lock (apply, ext add, mcp add),
// blocking until it is free. Call the returned function to release it.
func LockWorkspace(home store.Home, ws store.Workspace) (func(), error) {
	return store.Lock(home.WorkspaceLock(ws.Root))
}

// Plan is what an apply changes.
type Plan struct {
	Changes        []Change   `json:"changes"`
	Hooks          []PlanHook `json:"hooks,omitempty"` // hooks that will need approval
	ServersAdded   []string   `json:"serversAdded,omitempty"`
	ServersRemoved []string   `json:"serversRemoved,omitempty"`
	RefsMoved      []RefMove  `json:"refsMoved,omitempty"`
}

// PlanHook is a hook of a downloaded or workspace extension: it runs only
// once approved, keyed to the extension's hash.
type PlanHook struct {
	Extension string       `json:"extension"`
	Scope     schema.Scope `json:"scope"`
	Event     string       `json:"event"`
	Hook      string       `json:"hook"`
	Hash      string       `json:"hash,omitempty"`
	Changed   bool         `json:"changed"` // new or changed hash: asks again
}

// RefMove is a ref that moved after it was locked; the lock's commit is kept.
type RefMove struct {
	Kind   Kind   `json:"kind"`
	Name   string `json:"name"`
	Ref    string `json:"ref"`
	Locked string `json:"locked"`
	Now    string `json:"now"`
}

// Result is what an apply did.
type Result struct {
	Old         *schema.Lock     `json:"-"`
	Lock        *schema.Lock     `json:"lock"`
	LockFile    string           `json:"lockFile"` // "": none written (nothing to pin, no ollm.cue)
	LockWritten bool             `json:"lockWritten"`
	Plan        Plan             `json:"plan"`
	Resolved    *schema.Resolved `json:"-"`
	Generation  int              `json:"generation,omitempty"`
	DryRun      bool             `json:"dryRun"`
}

// load resolves the profile as if the workspace were approved: the
// resolver fetches and pins what the profile names, which runs nothing;
// what runs is gated when it is loaded for use.
func (a *Applier) load(o profiles.Options) (*schema.Resolved, error) {
	o.Ungated = true
	if a.Load != nil {
		return a.Load(o)
	}
	return profiles.Load(o)
}

// Apply resolves, locks, installs and records a generation.
func (a *Applier) Apply(ctx context.Context, opts ApplyOptions) (*Result, error) {
	ws, home := a.Options.Workspace, a.Options.Home
	res := &Result{LockFile: ws.Lock(), DryRun: opts.DryRun}
	if !opts.DryRun && !opts.LockHeld {
		unlock, err := LockWorkspace(home, ws)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	old, err := ReadLock(ws.Lock())
	if err != nil {
		return nil, err
	}
	if opts.Locked && old == nil {
		return nil, &StaleError{File: ws.Lock(), Missing: true}
	}
	if !opts.DryRun {
		release, err := a.Resolver.Store.LockShared()
		if err != nil {
			return nil, err
		}
		defer release()
		if n, _ := a.Resolver.Store.Recover(); n > 0 && a.Resolver.Events.Recovered != nil {
			a.Resolver.Events.Recovered(n)
		}
	}
	res.Old = old
	var moved []RefMove
	r := *a.Resolver
	r.Events.RefMoved = func(kind Kind, name, ref, locked, now string) {
		moved = append(moved, RefMove{kind, name, ref, locked, now})
		if a.Resolver.Events.RefMoved != nil {
			a.Resolver.Events.RefMoved(kind, name, ref, locked, now)
		}
	}
	lock, final, err := a.resolve(ctx, &r, old, opts)
	if err != nil {
		return nil, err
	}
	res.Lock, res.Resolved = lock, final
	res.Plan = a.plan(old, lock, final)
	res.Plan.RefsMoved = moved
	if opts.DryRun {
		return res, nil
	}
	var digest string
	if old == nil && lockEmpty(lock) && !exists(ws.Profile()) {
		// Nothing to pin and no ollm.cue: a lock would be a stray file
		// in a directory that has no profile of its own.
		res.LockFile, digest = "", LockDigest(lock)
	} else {
		before, _ := os.ReadFile(ws.Lock())
		if digest, err = WriteLock(ws.Lock(), lock); err != nil {
			return nil, err
		}
		after, _ := os.ReadFile(ws.Lock())
		res.LockWritten = string(before) != string(after)
	}
	if opts.NoGeneration {
		return res, nil
	}
	final.LockDigest = digest
	gated, err := a.gatedView(final)
	if err != nil {
		return nil, err
	}
	n, err := a.writeGeneration(home, ws, lock, final, gated)
	if err != nil {
		return nil, err
	}
	res.Generation = n
	return res, nil
}

// resolve runs the passes: team profiles (extends) first, since they can
// add extension sources; then extensions; then the packages of the MCP
// servers the final profile declares.
func (a *Applier) resolve(ctx context.Context, r *Resolver, old *schema.Lock, opts ApplyOptions) (*schema.Lock, *schema.Resolved, error) {
	base := a.Options
	base.Locked, base.Teams = nil, nil
	req := Request{Old: old, Base: a.Options.Workspace.Root, Locked: opts.Locked, Update: opts.Update, DryRun: opts.DryRun, Offline: opts.Offline}
	first, err := a.load(base)
	if err != nil {
		return nil, nil, err
	}
	lock := NewLock()
	req.Wants = ProfileWants(first.Profile)
	if opts.Locked {
		if st := staleSources(KindProfile, req.Wants, old.Profiles); len(st) > 0 {
			return nil, nil, &StaleError{File: a.Options.Workspace.Lock(), Changes: st}
		}
	}
	if lock.Profiles, err = r.Ensure(ctx, req, KindProfile); err != nil {
		return nil, nil, err
	}
	v := a.verifier(r.Store)
	withTeams := base
	if withTeams.Teams, err = TeamFiles(v, lock.Profiles); err != nil {
		return nil, nil, err
	}
	mid := first
	if len(lock.Profiles) > 0 {
		if mid, err = a.load(withTeams); err != nil {
			return nil, nil, err
		}
	}
	req.Wants = append(req.Wants, ExtensionWants(mid.Profile)...)
	if opts.Locked {
		if st := staleSources(KindExtension, filterWants(req.Wants, KindExtension), old.Extensions); len(st) > 0 {
			return nil, nil, &StaleError{File: a.Options.Workspace.Lock(), Changes: st}
		}
	}
	if lock.Extensions, err = r.Ensure(ctx, req, KindExtension); err != nil {
		return nil, nil, err
	}
	full := withTeams
	if full.Locked, err = LockedDirs(v, lock.Extensions); err != nil {
		return nil, nil, err
	}
	final, err := a.load(full)
	if err != nil {
		return nil, nil, err
	}
	a.full = full
	pkgs := PackageWants(final)
	if opts.Locked {
		if st := Stale(req.Wants, pkgs, old); len(st) > 0 {
			return nil, nil, &StaleError{File: a.Options.Workspace.Lock(), Changes: st}
		}
	}
	if lock.Packages, err = r.EnsurePackages(ctx, req, pkgs); err != nil {
		return nil, nil, err
	}
	SortLock(lock)
	return lock, final, nil
}

// lockEmpty: l pins nothing.
func lockEmpty(l *schema.Lock) bool {
	return len(l.Profiles) == 0 && len(l.Extensions) == 0 && len(l.Packages) == 0
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// LockedDirs maps lock entries present in the store to loader inputs.
// Each entry is first checked against the hash the lock pins (v.Verify): a
// changed entry is a *store.TamperedError and nothing is returned, so no
// command loads, shows or runs what the lock does not pin.
func LockedDirs(v *store.Verifier, entries []schema.LockedSource) ([]profiles.LockedDir, error) {
	dirs, err := verified(v, entries)
	if err != nil {
		return nil, err
	}
	var out []profiles.LockedDir
	for i, e := range entries {
		if dirs[i] != "" {
			out = append(out, profiles.LockedDir{Name: e.Name, Dir: dirs[i], Hash: e.Hash})
		}
	}
	return out, nil
}

// TeamFiles maps team profile entries present in the store to loader
// inputs, in lock order, after checking them like LockedDirs.
func TeamFiles(v *store.Verifier, entries []schema.LockedSource) ([]profiles.TeamFile, error) {
	dirs, err := verified(v, entries)
	if err != nil {
		return nil, err
	}
	var out []profiles.TeamFile
	for i, e := range entries {
		if dirs[i] != "" {
			out = append(out, profiles.TeamFile{Name: e.Name, File: filepath.Join(dirs[i], store.ProfileFileName), Hash: e.Hash})
		}
	}
	return out, nil
}

// verified returns the checked store directory of each entry, "" for one
// that is not in the store or has no valid hash yet (a dry run's new
// entries).
func verified(v *store.Verifier, entries []schema.LockedSource) ([]string, error) {
	var pins []store.Pin
	var at []int
	for i, e := range entries {
		if _, err := v.CAS.Path(e.Hash, e.Name); err == nil {
			pins = append(pins, store.Pin{Name: e.Name, Hash: e.Hash})
			at = append(at, i)
		}
	}
	got, err := v.Verify(pins)
	if err != nil {
		return nil, err
	}
	dirs := make([]string, len(entries))
	for j, i := range at {
		dirs[i] = got[j]
	}
	return dirs, nil
}

// StoreOptions completes loader options with the extensions and team
// profiles that the workspace's ollm.lock pins and the store holds, each
// verified against its hash (see LockedDirs): this is where every command
// but `profile apply` gets store entries. A missing or unreadable lock
// adds nothing; `ollm profile apply` reports it.
func StoreOptions(opts profiles.Options) (profiles.Options, error) {
	l, err := ReadLock(opts.Workspace.Lock())
	if err != nil || l == nil {
		return opts, nil
	}
	v := store.NewVerifier(store.NewCAS(opts.Home.Store()), opts.Home.StoreKey())
	if opts.Teams, err = TeamFiles(v, l.Profiles); err != nil {
		return profiles.Options{}, err
	}
	if opts.Locked, err = LockedDirs(v, l.Extensions); err != nil {
		return profiles.Options{}, err
	}
	return opts, nil
}

// plan describes old -> lock: source changes, hooks that need approval,
// MCP servers added and removed since the current generation.
func (a *Applier) plan(old, lock *schema.Lock, final *schema.Resolved) Plan {
	p := Plan{Changes: Diff(old, lock)}
	if p.Changes == nil {
		p.Changes = []Change{}
	}
	changed := map[string]bool{}
	for _, c := range p.Changes {
		if c.Section == KindExtension && c.Kind != Removed {
			changed[c.Name] = true
		}
	}
	for _, x := range final.Extensions {
		if x.Scope == schema.ScopeBuiltin || x.Scope == schema.ScopeUser {
			continue
		}
		events := make([]string, 0, len(x.Manifest.Hooks))
		for ev := range x.Manifest.Hooks {
			events = append(events, ev)
		}
		sort.Strings(events)
		for _, ev := range events {
			for _, h := range x.Manifest.Hooks[ev] {
				p.Hooks = append(p.Hooks, PlanHook{Extension: x.Name, Scope: x.Scope, Event: ev, Hook: h.Name, Hash: x.Hash,
					Changed: changed[x.Name]})
			}
		}
	}
	var prev map[string]bool
	gens := store.Generations{Dir: a.Options.Home.Generations()}
	if cur, ok, err := gens.Current(a.Options.Workspace.Root); err == nil && ok {
		if g, err := gens.Read(cur.Generation); err == nil {
			prev = ServerNames(&g.Resolved)
		}
	}
	now := ServerNames(final)
	for _, n := range sortedKeys(now) {
		if !prev[n] {
			p.ServersAdded = append(p.ServersAdded, n)
		}
	}
	for _, n := range sortedKeys(prev) {
		if !now[n] {
			p.ServersRemoved = append(p.ServersRemoved, n)
		}
	}
	return p
}

// ServerNames lists the MCP servers of a resolution: profile servers by
// name, extension servers as "ext:server".
func ServerNames(r *schema.Resolved) map[string]bool {
	out := map[string]bool{}
	for n := range r.Profile.MCP.Servers {
		out[n] = true
	}
	for _, x := range r.Extensions {
		for n := range x.Manifest.MCPServers {
			out[x.Name+":"+n] = true
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// gatedView resolves the final profile once more as if the workspace were
// not approved: what the generation runs while it is not. nil when
// nothing would be held back (no workspace, nothing widening, or the user
// trusts every workspace).
func (a *Applier) gatedView(final *schema.Resolved) (*schema.Resolved, error) {
	o := a.full
	o.Ungated, o.Unapproved = false, true
	load := profiles.Load
	if a.Load != nil {
		load = a.Load
	}
	g, err := load(o)
	if err != nil {
		return nil, err
	}
	t := g.Trust
	if !t.Gated || (len(t.Held) == 0 && len(t.HeldServers) == 0 && len(t.HeldExtensions) == 0) {
		return nil, nil
	}
	g.LockDigest = final.LockDigest
	return g, nil
}

func (a *Applier) writeGeneration(home store.Home, ws store.Workspace, lock *schema.Lock, final, gated *schema.Resolved) (int, error) {
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	inputs, digest := Inputs(home, ws, final)
	gen := &store.Generation{
		Created: now().UTC(), Workspace: ws.Root, LockDigest: final.LockDigest,
		InputsDigest: digest, Inputs: inputs, Lock: *CopyLock(lock), Resolved: *final, Gated: gated,
	}
	for _, list := range [][]schema.LockedSource{lock.Profiles, lock.Extensions} {
		for _, e := range list {
			if n, err := store.EntryName(e.Hash, e.Name); err == nil {
				gen.StoreEntries = append(gen.StoreEntries, n)
			}
		}
	}
	n, err := store.Generations{Dir: home.Generations()}.Write(gen)
	if err != nil {
		return 0, fmt.Errorf("write generation: %w", err)
	}
	return n, nil
}

// verifier checks the store entries an apply or check loads, with the
// cache key under the applier's home.
func (a *Applier) verifier(cas *store.CAS) *store.Verifier {
	return store.NewVerifier(cas, a.Options.Home.StoreKey())
}

// ErrNoGeneration means the workspace has no current generation.
var ErrNoGeneration = errors.New("no generation has been applied in this workspace; run `ollm profile apply`")

// Check compares ollm.lock with what the profile asks for, without
// fetching: team profiles and extensions are taken from the store where
// the lock pins them. An empty result means `apply --locked` would pass
// the staleness check.
func (a *Applier) Check() ([]Change, *schema.Lock, error) {
	old, err := ReadLock(a.Options.Workspace.Lock())
	if err != nil {
		return nil, nil, err
	}
	v := a.verifier(a.Resolver.Store)
	base := a.Options
	base.Locked, base.Teams = nil, nil
	first, err := a.load(base)
	if err != nil {
		return nil, nil, err
	}
	wants := ProfileWants(first.Profile)
	oldc := CopyLock(old)
	withTeams := base
	if withTeams.Teams, err = TeamFiles(v, oldc.Profiles); err != nil {
		return nil, nil, err
	}
	mid := first
	if len(withTeams.Teams) > 0 {
		if mid, err = a.load(withTeams); err != nil {
			return nil, nil, err
		}
	}
	wants = append(wants, ExtensionWants(mid.Profile)...)
	full := withTeams
	if full.Locked, err = LockedDirs(v, oldc.Extensions); err != nil {
		return nil, nil, err
	}
	final, err := a.load(full)
	if err != nil {
		return nil, nil, err
	}
	changes := Stale(wants, PackageWants(final), old)
	changes = append(changes, ChangedPaths(a.Options.Workspace.Root, old)...)
	dirs := map[string]string{}
	for _, d := range full.Locked {
		dirs[d.Name] = d.Dir
	}
	return append(changes, changedPermissions(old, dirs)...), old, nil
}

// ManifestName fetches a git source into a scratch directory (nothing
// enters the store), validates its manifest and returns the name it
// declares. An invalid manifest is a *profiles.ManifestError.
func (r *Resolver) ManifestName(ctx context.Context, src schema.Source) (string, error) {
	commit, err := r.Git.Resolve(ctx, src.Git, src.Ref)
	if err != nil {
		return "", err
	}
	t, err := r.Store.NewTemp()
	if err != nil {
		return "", err
	}
	defer t.Discard()
	if err := r.export(ctx, KindExtension, src.Git, commit, schema.LockedSource{Subdir: src.Subdir, Plugin: src.Plugin}, t.Tree()); err != nil {
		return "", err
	}
	name, err := ManifestName(t.Tree())
	var mk *profiles.MarketplaceError
	if errors.As(err, &mk) {
		return "", fmt.Errorf("%w: %s (commit %s): %w", ErrNoManifest, src.Git, short(commit), mk)
	}
	if errors.Is(err, ErrNoManifest) {
		return "", fmt.Errorf("%w: no manifest.json, gemini-extension.json or .claude-plugin/plugin.json at the top of %s (commit %s); pass --subdir for an extension in a folder", ErrNoManifest, src.Git, short(commit))
	}
	return name, err
}
