package profiles

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// decodeManifest turns a manifest that validated into Go. Its own bytes
// are decoded with encoding/json and the schema's defaults
// (manifestDefaults) filled in: asking CUE for the JSON (v.MarshalJSON)
// cost a quarter of a manifest's validation, most of it ordering every
// object's fields. A manifest with a key twice in one object is the
// exception: CUE unifies the two values where encoding/json would keep
// the last, so its JSON comes from CUE, which is what was validated.
func decodeManifest(v cue.Value, expr ast.Expr, data []byte, format string) (schema.Manifest, error) {
	var err error
	if hasDuplicateKeys(expr) {
		data, err = v.MarshalJSON()
	} else {
		data, err = withDefaults(data, manifestDefaults[format])
	}
	if err != nil {
		return schema.Manifest{}, err
	}
	if format == "gemini" {
		var g geminiManifest
		err := json.Unmarshal(data, &g)
		return g.convert(), err
	}
	var m schema.Manifest
	err = json.Unmarshal(data, &m)
	return m, err
}

// withDefaults fills the defaults into the JSON document data where it
// leaves the fields out.
func withDefaults(data []byte, defaults []fieldDefault) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers pass through as written
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	changed := false
	for _, d := range defaults {
		changed = fillDefault(doc, strings.Split(d.Path, "."), d.Value) || changed
	}
	if !changed {
		return data, nil
	}
	return json.Marshal(doc)
}

// fillDefault sets value at path in doc where an object lacks the last
// key, and reports whether it set any.
func fillDefault(doc any, path []string, value any) bool {
	if len(path) == 1 {
		obj, ok := doc.(map[string]any)
		if !ok {
			return false
		}
		if _, set := obj[path[0]]; set {
			return false
		}
		obj[path[0]] = value
		return true
	}
	changed := false
	switch x := doc.(type) {
	case map[string]any:
		if path[0] != "*" {
			return fillDefault(x[path[0]], path[1:], value)
		}
		for _, e := range x {
			changed = fillDefault(e, path[1:], value) || changed
		}
	case []any:
		if path[0] != "*" {
			return false
		}
		for _, e := range x {
			changed = fillDefault(e, path[1:], value) || changed
		}
	}
	return changed
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
