package profiles

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"cuelang.org/go/cue"

	"github.com/ollm/ollm/schema"
)

// The Go types and the CUE definitions cannot drift: a profile and a
// manifest that set every field survive CUE -> JSON -> Go -> JSON, and every
// JSON field of the Go types appears in them (so a Go field without a CUE
// counterpart, which CUE would reject as "field not allowed", fails here).
func TestRoundTripProfile(t *testing.T) {
	data, err := os.ReadFile("testdata/full.cue")
	if err != nil {
		t.Fatal(err)
	}
	c, err := newCompiler()
	if err != nil {
		t.Fatal(err)
	}
	l, err := parseLayer(schema.ScopeWorkspace, "testdata/full.cue", data)
	if err != nil {
		t.Fatal(err)
	}
	lists := extractLists([]*layer{l})
	v, err := c.unifyProfile([]*layer{l}, listsFile(lists))
	if err != nil {
		t.Fatal(err)
	}
	fromCUE, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var p schema.Profile
	roundTrip(t, fromCUE, &p)
	checkCovered(t, reflect.TypeOf(p), fromCUE)
}

func TestRoundTripManifest(t *testing.T) {
	data, err := os.ReadFile("testdata/full-manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := newCompiler()
	if err != nil {
		t.Fatal(err)
	}
	if _, diags := c.manifest("testdata/full-manifest.json", data, "ollm"); len(diags) > 0 {
		t.Fatalf("full manifest invalid: %v", diags)
	}
	v := c.def("Manifest").Unify(c.ctx.CompileBytes(data))
	if err := v.Validate(cue.Concrete(true)); err != nil {
		t.Fatal(err)
	}
	fromCUE, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m schema.Manifest
	roundTrip(t, fromCUE, &m)
	checkCovered(t, reflect.TypeOf(m), fromCUE)
}

func roundTrip(t *testing.T, fromCUE []byte, goValue any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(fromCUE)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(goValue); err != nil {
		t.Fatalf("CUE output does not decode into %T: %v", goValue, err)
	}
	fromGo, err := json.Marshal(goValue)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal(fromCUE, &a)
	_ = json.Unmarshal(fromGo, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("round trip changed the value:\nCUE: %s\nGo:  %s", fromCUE, fromGo)
	}
}

// checkCovered fails for every JSON field of typ (recursively) that never
// appears as a key in doc.
func checkCovered(t *testing.T, typ reflect.Type, doc []byte) {
	t.Helper()
	keys := map[string]bool{}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				keys[k] = true
				walk(v)
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	var d any
	_ = json.Unmarshal(doc, &d)
	walk(d)
	var missing []string
	seen := map[reflect.Type]bool{}
	var visit func(reflect.Type, string)
	visit = func(ty reflect.Type, at string) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := 0; i < ty.NumField(); i++ {
			f := ty.Field(i)
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			if name == "" || name == "-" {
				continue
			}
			if !keys[name] {
				missing = append(missing, at+ty.Name()+"."+name)
			}
			visit(f.Type, "")
		}
	}
	visit(typ, "")
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("fields never set in the round-trip fixture (add them to testdata): %s", strings.Join(missing, ", "))
	}
}
