package profiles

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	"cuelang.org/go/cue"
)

// TestManifestDefaultsInStep keeps manifestDefaults, which decodeManifest
// fills in Go, equal to the defaults the manifest schema declares: a
// default added to the schema fails here until it is added to the list.
func TestManifestDefaultsInStep(t *testing.T) {
	c, err := newCompiler()
	if err != nil {
		t.Fatal(err)
	}
	for format, def := range map[string]string{"ollm": "Manifest", "gemini": "GeminiManifest"} {
		found := map[string]any{}
		schemaDefaults(c.def(def), "", false, 0, found)
		var got, want []string
		for p, v := range found {
			got = append(got, fmt.Sprintf("%s=%#v", p, v))
		}
		for _, d := range manifestDefaults[format] {
			want = append(want, fmt.Sprintf("%s=%#v", d.Path, d.Value))
		}
		sort.Strings(got)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("#%s declares the defaults\n  %v\nmanifestDefaults[%q] (profiles/manifest_decode.go) has\n  %v\nmake them equal", def, got, format, want)
		}
	}
}

// schemaDefaults records the default of every regular field under v by
// its path, "*" standing for any key or list element.
func schemaDefaults(v cue.Value, path string, regular bool, depth int, found map[string]any) {
	if depth > 10 {
		return
	}
	join := func(s string) string {
		if path == "" {
			return s
		}
		return path + "." + s
	}
	if d, ok := v.Default(); ok && regular {
		var x any
		if err := d.Decode(&x); err == nil {
			found[path] = x
		}
	}
	if it, err := v.Fields(cue.Optional(true), cue.Patterns(true)); err == nil {
		for it.Next() {
			sel := it.Selector()
			if sel.ConstraintType()&cue.PatternConstraint != 0 {
				schemaDefaults(it.Value(), join("*"), false, depth+1, found)
				continue
			}
			schemaDefaults(it.Value(), join(sel.Unquoted()), sel.ConstraintType() == 0, depth+1, found)
		}
	}
	if p := v.LookupPath(cue.MakePath(cue.AnyString)); p.Exists() {
		schemaDefaults(p, join("*"), false, depth+1, found)
	}
	if p := v.LookupPath(cue.MakePath(cue.AnyIndex)); p.Exists() {
		schemaDefaults(p, join("*"), false, depth+1, found)
	}
}
