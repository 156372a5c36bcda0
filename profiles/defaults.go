package profiles

import (
	"cuelang.org/go/cue/ast"

	"github.com/ollm/ollm/schema"
)

// composeDefaults makes the defaults of layers compose. CUE gives a field
// with two different defaults (the builtin's *"qwen3:8b", a workspace's
// *"llama3.2") no default at all, and the profile does not evaluate; nor
// does a layer's default beside the schema's (*60000 against *120000).
// Where no layer gives a field anything but a default (*x | ...), the
// default of the highest layer writing one becomes that layer's value: a
// higher layer's default wins over a lower one's and the schema's, and a
// plain value in any layer wins over every default, as in CUE. The builtin
// layer is never rewritten (its defaults are the schema's own). It runs
// after the trust gate: a held default is gone by then.
func composeDefaults(layers []*layer) {
	fields := map[string][]defaultField{}
	var order []string
	for i, l := range layers {
		collectFields(l.file.Decls, "", i, func(path string, f defaultField) {
			if _, ok := fields[path]; !ok {
				order = append(order, path)
			}
			fields[path] = append(fields[path], f)
		})
	}
	for _, path := range order {
		fs := fields[path]
		top := -1
		for j, f := range fs {
			if f.def == nil {
				top = -1
				break
			}
			if top < 0 || f.layer >= fs[top].layer {
				top = j
			}
		}
		if top < 0 || layers[fs[top].layer].scope == schema.ScopeBuiltin {
			continue
		}
		fs[top].field.Value = fs[top].def
	}
}

// defaultField is one field of a layer at a path: def is its default when
// its value is a disjunction with exactly one (onlyDefault), else nil.
type defaultField struct {
	layer int
	field *ast.Field
	def   ast.Expr
}

// collectFields calls add for every field under decls with a static
// label, at its dotted path, descending into struct values and embedded
// structs (not lists, comprehensions or patterns: their fields are left
// to CUE). A struct value is not reported itself.
func collectFields(decls []ast.Decl, prefix string, layer int, add func(string, defaultField)) {
	for _, d := range decls {
		switch x := d.(type) {
		case *ast.EmbedDecl:
			if s, ok := x.Expr.(*ast.StructLit); ok {
				collectFields(s.Elts, prefix, layer, add)
			}
		case *ast.Field:
			name := labelName(x.Label)
			if name == "" {
				continue
			}
			path := joinPath(prefix, name)
			if s, ok := x.Value.(*ast.StructLit); ok {
				collectFields(s.Elts, path, layer, add)
				continue
			}
			def, _ := onlyDefault(x.Value)
			add(path, defaultField{layer: layer, field: x, def: def})
		}
	}
}
