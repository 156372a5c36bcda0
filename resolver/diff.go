package resolver

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/schema"
)

// Kind says what a wanted source is.
type Kind string

const (
	KindExtension Kind = "extension" // extensions.sources
	KindProfile   Kind = "profile"   // extends: a team profile
	KindPackage   Kind = "package"   // an MCP server's package
)

// Want is one source the profile asks for.
type Want struct {
	Kind   Kind
	Name   string
	Source schema.Source
}

// request is the asked part of a lock entry.
func (w Want) request() schema.LockedSource {
	e := schema.LockedSource{Name: w.Name, Ref: w.Source.Ref, Subdir: w.Source.Subdir, Plugin: w.Source.Plugin}
	if w.Source.Git != "" {
		e.Type, e.Source = schema.SourceGit, w.Source.Git
	} else {
		e.Type, e.Source = schema.SourcePath, w.Source.Path
	}
	return e
}

// sameRequest: the lock entry was resolved from the same request.
func sameRequest(a, b schema.LockedSource) bool {
	return a.Name == b.Name && a.Type == b.Type && a.Source == b.Source && a.Ref == b.Ref && a.Subdir == b.Subdir && a.Plugin == b.Plugin
}

// ExtensionWants lists extensions.sources, sorted by name.
func ExtensionWants(p schema.Profile) []Want {
	var out []Want
	for name, src := range p.Extensions.Sources {
		out = append(out, Want{Kind: KindExtension, Name: name, Source: src})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

var unsafeName = lazyre.New(`[^A-Za-z0-9._-]+`)

// ProfileWants lists the team profiles of extends, in order. Each is named
// after the last element of its subdir, or else its repository (without
// .git); a repeated name gets -2, -3, ...
func ProfileWants(p schema.Profile) []Want {
	var out []Want
	seen := map[string]int{}
	for _, src := range p.Extends {
		base := src.Subdir
		if base == "" {
			base = src.Git
			if base == "" {
				base = src.Path
			}
			base = strings.TrimSuffix(strings.TrimRight(base, "/"), ".git")
			if i := strings.LastIndexAny(base, "/:"); i >= 0 {
				base = base[i+1:]
			}
		}
		name := strings.Trim(unsafeName.ReplaceAllString(path.Base(strings.TrimRight(base, "/")), "-"), "-.")
		if name == "" {
			name = "team"
		}
		seen[name]++
		if n := seen[name]; n > 1 {
			name = fmt.Sprintf("%s-%d", name, n)
		}
		out = append(out, Want{Kind: KindProfile, Name: name, Source: src})
	}
	return out
}

// ChangeKind classifies a Change.
type ChangeKind string

const (
	Added   ChangeKind = "added"
	Changed ChangeKind = "changed"
	Removed ChangeKind = "removed"
)

// Change is one difference between two locks, or between a lock and what
// the profile asks for.
type Change struct {
	Kind    ChangeKind `json:"kind"`
	Section Kind       `json:"section"`
	Name    string     `json:"name"`
	Source  string     `json:"source,omitempty"`
	Ref     string     `json:"ref,omitempty"`
	// Old and New describe what changed: a commit, a hash, a ref or a
	// package version, whichever differs first.
	Old    string `json:"old,omitempty"`
	New    string `json:"new,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func (c Change) String() string {
	sym := map[ChangeKind]string{Added: "+", Changed: "~", Removed: "-"}[c.Kind]
	s := fmt.Sprintf("%s %s %s", sym, c.Section, c.Name)
	if c.Source != "" {
		s += " (" + c.Source
		if c.Ref != "" {
			s += "@" + c.Ref
		}
		s += ")"
	}
	switch {
	case c.Old != "" && c.New != "":
		s += ": " + c.Old + " -> " + c.New
	case c.New != "":
		s += ": " + c.New
	case c.Old != "":
		s += ": " + c.Old
	}
	if c.Reason != "" {
		s += " [" + c.Reason + "]"
	}
	return s
}

// Diff lists what changes from old to new, sorted by section and name.
// Either may be nil.
func Diff(old, new *schema.Lock) []Change {
	old, new = CopyLock(old), CopyLock(new)
	var out []Change
	out = append(out, diffSources(KindProfile, old.Profiles, new.Profiles)...)
	out = append(out, diffSources(KindExtension, old.Extensions, new.Extensions)...)
	out = append(out, diffPackages(old.Packages, new.Packages)...)
	return out
}

func diffSources(kind Kind, old, new []schema.LockedSource) []Change {
	var out []Change
	for _, n := range new {
		o := findSource(old, n.Name)
		switch {
		case o == nil:
			out = append(out, Change{Kind: Added, Section: kind, Name: n.Name, Source: n.Source, Ref: n.Ref, New: pinOf(n)})
		case !sameEntry(*o, n):
			old, new := describe(*o, n)
			out = append(out, Change{Kind: Changed, Section: kind, Name: n.Name, Source: n.Source, Ref: n.Ref, Old: old, New: new})
		}
	}
	for _, o := range old {
		if findSource(new, o.Name) == nil {
			out = append(out, Change{Kind: Removed, Section: kind, Name: o.Name, Source: o.Source, Ref: o.Ref, Old: pinOf(o)})
		}
	}
	sortChanges(out)
	return out
}

// sameEntry: both entries pin the same thing (the request, commit, hash
// and permissions).
func sameEntry(a, b schema.LockedSource) bool {
	return sameRequest(a, b) && a.Commit == b.Commit && a.Hash == b.Hash && schema.SamePermissions(a.Permissions, b.Permissions)
}

// pinOf is the short form of what an entry resolved to.
func pinOf(e schema.LockedSource) string {
	if e.Commit != "" {
		return short(e.Commit)
	}
	return e.Hash
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// describe names the first field that differs between two entries.
func describe(o, n schema.LockedSource) (string, string) {
	switch {
	case o.Source != n.Source || o.Type != n.Type:
		return o.Source, n.Source
	case o.Subdir != n.Subdir:
		return "subdir " + o.Subdir, "subdir " + n.Subdir
	case o.Plugin != n.Plugin:
		return "plugin " + o.Plugin, "plugin " + n.Plugin
	case o.Commit != n.Commit:
		return short(o.Commit), short(n.Commit)
	case o.Hash != n.Hash:
		return o.Hash, n.Hash
	case !schema.SamePermissions(o.Permissions, n.Permissions):
		return "permissions " + PermissionsString(o.Permissions), "permissions " + PermissionsString(n.Permissions)
	default:
		return "ref " + o.Ref, "ref " + n.Ref
	}
}

// describeRequest names the first asked field that differs.
func describeRequest(o, n schema.LockedSource) (string, string) {
	switch {
	case o.Source != n.Source || o.Type != n.Type:
		return o.Source, n.Source
	case o.Subdir != n.Subdir:
		return "subdir " + o.Subdir, "subdir " + n.Subdir
	case o.Plugin != n.Plugin:
		return "plugin " + o.Plugin, "plugin " + n.Plugin
	default:
		return "ref " + o.Ref, "ref " + n.Ref
	}
}

func diffPackages(old, new []schema.LockedPackage) []Change {
	var out []Change
	for _, n := range new {
		o := findPackage(old, n.Server, n.Runner, n.Package)
		switch {
		case o == nil:
			out = append(out, Change{Kind: Added, Section: KindPackage, Name: n.Server, Source: n.Runner + " " + n.Package, New: n.Version})
		case o.Version != n.Version:
			out = append(out, Change{Kind: Changed, Section: KindPackage, Name: n.Server, Source: n.Runner + " " + n.Package, Old: o.Version, New: n.Version})
		}
	}
	for _, o := range old {
		if findPackage(new, o.Server, o.Runner, o.Package) == nil {
			out = append(out, Change{Kind: Removed, Section: KindPackage, Name: o.Server, Source: o.Runner + " " + o.Package, Old: o.Version})
		}
	}
	sortChanges(out)
	return out
}

func sortChanges(cs []Change) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Name != cs[j].Name {
			return cs[i].Name < cs[j].Name
		}
		return cs[i].Source < cs[j].Source
	})
}

// Stale lists how lock falls short of what is wanted: a source missing
// from the lock, locked from a different request, or locked without its
// pin; a locked source no longer wanted; a package without a pinned
// version. An empty result means the lock satisfies the profile.
func Stale(wants []Want, pkgs []PackageWant, lock *schema.Lock) []Change {
	lock = CopyLock(lock)
	var out []Change
	out = append(out, staleSources(KindProfile, filterWants(wants, KindProfile), lock.Profiles)...)
	out = append(out, staleSources(KindExtension, filterWants(wants, KindExtension), lock.Extensions)...)
	for _, p := range pkgs {
		if findPackage(lock.Packages, p.Server, p.Runner, p.Package) == nil {
			out = append(out, Change{Kind: Added, Section: KindPackage, Name: p.Server, Source: p.Runner + " " + p.Package, Reason: "not pinned in the lock"})
		}
	}
	for _, l := range lock.Packages {
		if !hasPackageWant(pkgs, l) {
			out = append(out, Change{Kind: Removed, Section: KindPackage, Name: l.Server, Source: l.Runner + " " + l.Package, Old: l.Version, Reason: "no server launches it"})
		}
	}
	return out
}

func hasPackageWant(pkgs []PackageWant, l schema.LockedPackage) bool {
	for _, p := range pkgs {
		if p.Server == l.Server && p.Runner == l.Runner && p.Package == l.Package {
			return true
		}
	}
	return false
}

func filterWants(wants []Want, kind Kind) []Want {
	var out []Want
	for _, w := range wants {
		if w.Kind == kind {
			out = append(out, w)
		}
	}
	return out
}

func staleSources(kind Kind, wants []Want, locked []schema.LockedSource) []Change {
	var out []Change
	for _, w := range wants {
		req := w.request()
		l := findSource(locked, w.Name)
		switch {
		case l == nil:
			out = append(out, Change{Kind: Added, Section: kind, Name: w.Name, Source: req.Source, Ref: req.Ref, Reason: "not in the lock"})
		case !sameRequest(*l, req):
			o, n := describeRequest(*l, req)
			out = append(out, Change{Kind: Changed, Section: kind, Name: w.Name, Source: req.Source, Ref: req.Ref, Old: o, New: n, Reason: "the profile asks for something else"})
		case l.Hash == "" || (l.Type == schema.SourceGit && !IsCommit(l.Commit)):
			out = append(out, Change{Kind: Changed, Section: kind, Name: w.Name, Source: req.Source, Ref: req.Ref, Reason: "the lock entry has no commit or hash"})
		}
	}
	for _, l := range locked {
		if !hasWant(wants, l.Name) {
			out = append(out, Change{Kind: Removed, Section: kind, Name: l.Name, Source: l.Source, Ref: l.Ref, Old: pinOf(l), Reason: "no longer in the profile"})
		}
	}
	sortChanges(out)
	return out
}

func hasWant(wants []Want, name string) bool {
	for _, w := range wants {
		if w.Name == name {
			return true
		}
	}
	return false
}
