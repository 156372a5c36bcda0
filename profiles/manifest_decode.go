package profiles

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"

	"github.com/ollm/ollm/schema"
)

// fieldDefault is a value the manifest schema gives a field the manifest
// leaves out. In Path, "*" stands for every key of an object or every
// element of a list.
type fieldDefault struct {
	Path  string
	Value any
}

// manifestDefaults are the defaults of #Manifest and #GeminiManifest
// (cue/manifest.cue, cue/profile.cue), by manifest format.
// TestManifestDefaultsInStep walks the schema and fails when this list
// and the schema's defaults differ.
var manifestDefaults = map[string][]fieldDefault{
	"ollm": {
		{"hooks.*.*.async", false},
		{"hooks.*.*.dialect", "ollm"},
		{"hooks.*.*.failClosed", false},
		{"hooks.*.*.persistent", false},
		{"mcpServers.*.enabled", true},
		{"mcpServers.*.transport", "stdio"},
		{"settings.*.required", false},
		{"settings.*.sensitive", false},
		{"settings.*.type", "string"},
	},
	"gemini": {
		{"settings.*.description", ""},
	},
}

// decodeValidated decodes a manifest that validated: its own bytes with
// encoding/json, then the schema's defaults (manifestDefaults) where it
// leaves a field out. Asking CUE for the JSON (v.MarshalJSON) cost a
// quarter of a manifest's validation, most of it ordering every object's
// fields. A manifest with a key twice in one object is the exception:
// CUE unifies the two values where encoding/json would keep the last, so
// its JSON comes from CUE, which is what was validated.
func decodeValidated(v cue.Value, expr ast.Expr, data []byte, format string) (schema.Manifest, error) {
	var err error
	dup := hasDuplicateKeys(expr)
	if dup {
		if data, err = v.MarshalJSON(); err != nil {
			return schema.Manifest{}, err
		}
	}
	var m schema.Manifest
	target := any(&m)
	var g geminiManifest
	if format == "gemini" {
		target = &g
	}
	if err := json.Unmarshal(data, target); err != nil {
		return schema.Manifest{}, err
	}
	if !dup {
		for _, d := range manifestDefaults[format] {
			fillDefault(reflect.ValueOf(target).Elem(), expr, strings.Split(d.Path, "."), d.Value)
		}
	}
	if format == "gemini" {
		m = g.convert()
	}
	return m, nil
}

// fillDefault sets value at path in the decoded manifest rv wherever the
// manifest's JSON (node, in step with rv) leaves the last field out.
func fillDefault(rv reflect.Value, node ast.Expr, path []string, value any) {
	switch rv.Kind() {
	case reflect.Pointer:
		if !rv.IsNil() {
			fillDefault(rv.Elem(), node, path, value)
		}
	case reflect.Struct:
		fillField(rv, node, path, value)
	case reflect.Map: // path[0] is "*"
		fillMap(rv, node, path[1:], value)
	case reflect.Slice: // path[0] is "*"
		if l, ok := node.(*ast.ListLit); ok {
			for i, e := range l.Elts {
				if i < rv.Len() {
					fillDefault(rv.Index(i), e, path[1:], value)
				}
			}
		}
	}
}

// fillField is fillDefault for the field path[0] of a struct.
func fillField(rv reflect.Value, node ast.Expr, path []string, value any) {
	f := jsonField(rv, path[0])
	if !f.IsValid() {
		return
	}
	sub := fieldValues(node, path[0])
	if len(path) > 1 {
		for _, n := range sub {
			fillDefault(f, n, path[1:], value)
		}
		return
	}
	if d := reflect.ValueOf(value); len(sub) == 0 && d.CanConvert(f.Type()) {
		f.Set(d.Convert(f.Type()))
	}
}

// fillMap is fillDefault for every value of a map, rest being the path
// below them. Map values cannot be set in place: each is copied, filled
// and stored again.
func fillMap(rv reflect.Value, node ast.Expr, rest []string, value any) {
	s, ok := node.(*ast.StructLit)
	if !ok {
		return
	}
	for _, e := range s.Elts {
		f, ok := e.(*ast.Field)
		if !ok {
			continue
		}
		name, _, _ := ast.LabelName(f.Label)
		key := reflect.ValueOf(name)
		elem := rv.MapIndex(key)
		if !elem.IsValid() {
			continue
		}
		cp := reflect.New(elem.Type()).Elem()
		cp.Set(elem)
		fillDefault(cp, f.Value, rest, value)
		rv.SetMapIndex(key, cp)
	}
}

// jsonField is the field of the struct rv that encoding/json fills from
// the key name.
func jsonField(rv reflect.Value, name string) reflect.Value {
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == name {
			return rv.Field(i)
		}
	}
	return reflect.Value{}
}

// hasDuplicateKeys reports an object anywhere in the JSON expression that
// has a key twice.
func hasDuplicateKeys(expr ast.Expr) bool {
	switch x := expr.(type) {
	case *ast.StructLit:
		names := make([]string, 0, len(x.Elts))
		for _, e := range x.Elts {
			f, ok := e.(*ast.Field)
			if !ok {
				continue
			}
			name, _, _ := ast.LabelName(f.Label)
			for _, n := range names {
				if n == name {
					return true
				}
			}
			names = append(names, name)
			if hasDuplicateKeys(f.Value) {
				return true
			}
		}
	case *ast.ListLit:
		for _, e := range x.Elts {
			if hasDuplicateKeys(e) {
				return true
			}
		}
	}
	return false
}

// hookEventFields adds to diags a diagnostic for each hook whose event
// field names another event than the one it is listed under
// (hooks: before_tool: [{event: "after_tool", ...}]). The schema checks
// that both are events; this check was a CUE alias (hooks: [E=#Event]:
// [...#Hook & {event?: E}]), which cost a third of a manifest's
// validation. A path CUE already reported is left to CUE's diagnostic.
func hookEventFields(expr ast.Expr, diags []Diagnostic) []Diagnostic {
	reported := map[string]bool{}
	for _, d := range diags {
		reported[d.Path] = true
	}
	n := len(diags)
	for _, hooks := range fieldValues(expr, "hooks") {
		events, ok := hooks.(*ast.StructLit)
		if !ok {
			continue
		}
		for _, e := range events.Elts {
			f, ok := e.(*ast.Field)
			if !ok {
				continue
			}
			event, _, _ := ast.LabelName(f.Label)
			list, ok := f.Value.(*ast.ListLit)
			if !ok {
				continue
			}
			for i, h := range list.Elts {
				for _, ev := range fieldValues(h, "event") {
					lit, ok := ev.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					got, err := literal.Unquote(lit.Value)
					path := "hooks." + cue.Str(event).String() + "." + strconv.Itoa(i) + ".event"
					if err != nil || got == event || reported[path] {
						continue
					}
					diags = append(diags, Diagnostic{Pos: lit.Pos().String(), Path: path,
						Message: fmt.Sprintf("%s: %q is not allowed; want %q, the event the hook is listed under (or move the hook to hooks.%s)", path, got, event, cue.Str(got))})
				}
			}
		}
	}
	if len(diags) > n {
		sort.SliceStable(diags, func(i, j int) bool { return diags[i].Pos < diags[j].Pos })
	}
	return diags
}

// fieldValues are the values of the fields named name of the JSON object
// expr (more than one when the key is there twice).
func fieldValues(expr ast.Node, name string) []ast.Expr {
	s, ok := expr.(*ast.StructLit)
	if !ok {
		return nil
	}
	var out []ast.Expr
	for _, e := range s.Elts {
		if f, ok := e.(*ast.Field); ok {
			if n, _, _ := ast.LabelName(f.Label); n == name {
				out = append(out, f.Value)
			}
		}
	}
	return out
}
