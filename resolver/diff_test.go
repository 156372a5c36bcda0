package resolver

import (
	"reflect"
	"testing"

	"github.com/ollm/ollm/schema"
)

const (
	cA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	cB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func src(name, ref, commit, hash string) schema.LockedSource {
	return schema.LockedSource{Name: name, Type: schema.SourceGit, Source: "https://example.invalid/" + name + ".git", Ref: ref, Commit: commit, Hash: hash}
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new *schema.Lock
		want     []Change
	}{
		{"both empty", nil, nil, nil},
		{"added", nil, &schema.Lock{Extensions: []schema.LockedSource{src("g", "v1", cA, "h1:x")}},
			[]Change{{Kind: Added, Section: KindExtension, Name: "g", Source: "https://example.invalid/g.git", Ref: "v1", New: cA[:12]}}},
		{"removed", &schema.Lock{Extensions: []schema.LockedSource{src("g", "v1", cA, "h1:x")}}, nil,
			[]Change{{Kind: Removed, Section: KindExtension, Name: "g", Source: "https://example.invalid/g.git", Ref: "v1", Old: cA[:12]}}},
		{"commit changed",
			&schema.Lock{Extensions: []schema.LockedSource{src("g", "v1", cA, "h1:x")}},
			&schema.Lock{Extensions: []schema.LockedSource{src("g", "v1", cB, "h1:y")}},
			[]Change{{Kind: Changed, Section: KindExtension, Name: "g", Source: "https://example.invalid/g.git", Ref: "v1", Old: cA[:12], New: cB[:12]}}},
		{"hash only (local dir)",
			&schema.Lock{Extensions: []schema.LockedSource{{Name: "l", Type: schema.SourcePath, Source: "./l", Hash: "h1:x"}}},
			&schema.Lock{Extensions: []schema.LockedSource{{Name: "l", Type: schema.SourcePath, Source: "./l", Hash: "h1:y"}}},
			[]Change{{Kind: Changed, Section: KindExtension, Name: "l", Source: "./l", Old: "h1:x", New: "h1:y"}}},
		{"unchanged", &schema.Lock{Profiles: []schema.LockedSource{src("t", "", cA, "h1:x")}}, &schema.Lock{Profiles: []schema.LockedSource{src("t", "", cA, "h1:x")}}, nil},
		{"package version",
			&schema.Lock{Packages: []schema.LockedPackage{{Server: "s", Runner: RunnerNPX, Package: "p", Version: "1.0.0"}}},
			&schema.Lock{Packages: []schema.LockedPackage{{Server: "s", Runner: RunnerNPX, Package: "p", Version: "1.1.0"}}},
			[]Change{{Kind: Changed, Section: KindPackage, Name: "s", Source: "npx p", Old: "1.0.0", New: "1.1.0"}}},
		{"sections in order: profiles, extensions, packages",
			nil,
			&schema.Lock{Profiles: []schema.LockedSource{src("t", "", cA, "h1:x")}, Extensions: []schema.LockedSource{src("b", "", cA, "h"), src("a", "", cA, "h")},
				Packages: []schema.LockedPackage{{Server: "s", Runner: RunnerUVX, Package: "q", Version: "2"}}},
			[]Change{
				{Kind: Added, Section: KindProfile, Name: "t", Source: "https://example.invalid/t.git", New: cA[:12]},
				{Kind: Added, Section: KindExtension, Name: "a", Source: "https://example.invalid/a.git", New: cA[:12]},
				{Kind: Added, Section: KindExtension, Name: "b", Source: "https://example.invalid/b.git", New: cA[:12]},
				{Kind: Added, Section: KindPackage, Name: "s", Source: "uvx q", New: "2"},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var oldCopy *schema.Lock
			if tc.old != nil {
				oldCopy = CopyLock(tc.old)
			}
			got := Diff(tc.old, tc.new)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Diff =\n%+v\nwant\n%+v", got, tc.want)
			}
			if tc.old != nil && !reflect.DeepEqual(tc.old, oldCopy) {
				t.Fatalf("Diff changed its input")
			}
		})
	}
}

func TestStale(t *testing.T) {
	want := func(name, ref string) Want {
		return Want{Kind: KindExtension, Name: name, Source: schema.Source{Git: "https://example.invalid/" + name + ".git", Ref: ref}}
	}
	lock := &schema.Lock{Extensions: []schema.LockedSource{src("g", "v1", cA, "h1:x")},
		Packages: []schema.LockedPackage{{Server: "s", Runner: RunnerNPX, Package: "p", Version: "1.0.0"}}}
	pkg := []PackageWant{{Server: "s", Runner: RunnerNPX, Package: "p"}}
	for _, tc := range []struct {
		name  string
		wants []Want
		pkgs  []PackageWant
		lock  *schema.Lock
		kinds []ChangeKind
	}{
		{"satisfied", []Want{want("g", "v1")}, pkg, lock, nil},
		{"no lock", []Want{want("g", "v1")}, nil, nil, []ChangeKind{Added}},
		{"ref changed", []Want{want("g", "v2")}, pkg, lock, []ChangeKind{Changed}},
		{"source gone", nil, pkg, lock, []ChangeKind{Removed}},
		{"package gone", []Want{want("g", "v1")}, nil, lock, []ChangeKind{Removed}},
		{"package new", []Want{want("g", "v1")}, append(pkg, PackageWant{Server: "t", Runner: RunnerUVX, Package: "q"}), lock, []ChangeKind{Added}},
		{"entry without commit", []Want{want("g", "v1")}, pkg, &schema.Lock{Extensions: []schema.LockedSource{src("g", "v1", "", "h1:x")},
			Packages: lock.Packages}, []ChangeKind{Changed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var kinds []ChangeKind
			for _, c := range Stale(tc.wants, tc.pkgs, tc.lock) {
				kinds = append(kinds, c.Kind)
			}
			if !reflect.DeepEqual(kinds, tc.kinds) {
				t.Fatalf("Stale kinds = %v, want %v", kinds, tc.kinds)
			}
		})
	}
}

func TestProfileWantsNames(t *testing.T) {
	p := schema.Profile{Extends: []schema.Source{
		{Git: "https://example.invalid/acme/team-profile.git"},
		{Git: "git@example.invalid:acme/base.git", Subdir: "profiles/strict"},
		{Git: "https://example.invalid/other/team-profile"},
		{Path: "../shared/"},
	}}
	var names []string
	for _, w := range ProfileWants(p) {
		names = append(names, w.Name)
	}
	if want := []string{"team-profile", "strict", "team-profile-2", "shared"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names = %v, want %v", names, want)
	}
}

func TestMarshalLockIsCanonical(t *testing.T) {
	l := &schema.Lock{Extensions: []schema.LockedSource{src("b", "", cA, "h1:x"), src("a", "", cB, "h1:y")}}
	before := CopyLock(l)
	a, err := MarshalLock(l)
	if err != nil {
		t.Fatal(err)
	}
	rev := &schema.Lock{Extensions: []schema.LockedSource{l.Extensions[1], l.Extensions[0]}, Comment: "edited", Version: 1}
	b, _ := MarshalLock(rev)
	if string(a) != string(b) || a[len(a)-1] != '\n' {
		t.Fatalf("not canonical:\n%s\n%s", a, b)
	}
	if !reflect.DeepEqual(l, before) {
		t.Fatalf("MarshalLock changed its input")
	}
}
