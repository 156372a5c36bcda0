package profiles

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"cuelang.org/go/cue"

	"github.com/ollm/ollm/schema"
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

// schemaDefaults records the default (or fixed value) of every regular
// field under v by its path, "*" standing for any key or list element.
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
	// a default, or a value the schema fixes: both appear in CUE's JSON
	// when the manifest leaves the field out
	if d, ok := v.Default(); regular && (ok || (v.IsConcrete() && v.Kind()&(cue.StructKind|cue.ListKind) == 0)) {
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

// A manifest remembered in manifestMemo is decoded afresh for each
// caller: changing one result changes no other, and the same bytes under
// another file name are validated again (positions name the file).
func TestManifestMemo(t *testing.T) {
	c, err := newCompiler()
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(manifestJSON("memo", `"mcpServers": {"s": {"command": "x", "args": ["a"]}}, "hooks": {"before_tool": [{"name": "h", "command": "./h.sh"}]}`))
	first, diags := c.manifest("a/manifest.json", data, "ollm")
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	first.MCPServers["s"] = schema.MCPServer{Command: "changed"}
	first.Hooks["before_tool"][0].Command = "changed"
	again, _ := c.manifest("a/manifest.json", []byte(manifestJSON("memo", `"mcpServers": {"s": {"command": "x", "args": ["a"]}}, "hooks": {"before_tool": [{"name": "h", "command": "./h.sh"}]}`)), "ollm")
	if s := again.MCPServers["s"]; again.Name != "memo" || s.Command != "x" || !s.Enabled || s.Transport != "stdio" || again.Hooks["before_tool"][0].Command != "./h.sh" {
		t.Fatalf("remembered manifest changed by an earlier caller: %+v", again)
	}

	plain := []byte(manifestJSON("plain", "")) // nothing to fill in: validatedJSON returns these bytes
	if m, _ := c.manifest("p/manifest.json", plain, "ollm"); m.Name != "plain" {
		t.Fatalf("got %+v", m)
	}
	plain[2] = 'X' // the caller's buffer is not the memo's
	if m, _ := c.manifest("p/manifest.json", []byte(manifestJSON("plain", "")), "ollm"); m.Name != "plain" {
		t.Fatalf("remembered manifest changed with the caller's buffer: %+v", m)
	}

	bad := []byte("{\"name\": \"memo\", \"version\": \"1\", \"description\": \"d\",\n \"hooks\": {\"before_tool\": [{\"name\": \"h\", \"command\": \"../h.sh\"}]}}")
	for _, file := range []string{"a/manifest.json", "b/manifest.json", "a/manifest.json"} {
		_, diags := c.manifest(file, bad, "ollm")
		if len(diags) != 1 || !strings.HasPrefix(diags[0].Pos, file+":2:") || !strings.Contains(diags[0].Message, "escapes the extension directory "+filepath.Dir(file)) {
			t.Fatalf("%s: got %v, want one diagnostic at %s:2", file, diags, file)
		}
	}
}

// Loads in several goroutines (each with its own compiler, as Load makes
// one) share manifestMemo.
func TestManifestMemoConcurrent(t *testing.T) {
	data := []byte(manifestJSON("conc", `"mcpServers": {"s": {"command": "x"}}`))
	manifestMemo.reset()
	done := make(chan schema.Manifest)
	for range 4 {
		go func() {
			c, err := newCompiler()
			if err != nil {
				t.Error(err)
				done <- schema.Manifest{}
				return
			}
			m, _ := c.manifest("conc/manifest.json", data, "ollm")
			m.MCPServers["s"] = schema.MCPServer{}
			done <- m
		}()
	}
	for range 4 {
		if m := <-done; m.Name != "conc" {
			t.Fatalf("got %+v", m)
		}
	}
}

// Loads in goroutines share the kept compilers (compilers): each has one
// to itself, and every Load sees the same extensions.
func TestCompilersConcurrent(t *testing.T) {
	e := newEnv(t)
	genExtensions(t, e, 3)
	compilers.reset()
	errs := make(chan error)
	for range 4 {
		go func() {
			for range 3 {
				r, err := Load(e.opts())
				if err == nil && (len(r.Extensions) != 3 || len(r.Problems) != 0) {
					err = fmt.Errorf("loaded %d extensions, problems: %s", len(r.Extensions), problemsText(r.Problems))
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
