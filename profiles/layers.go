package profiles

import (
	"path/filepath"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/ollm/ollm/schema"
)

// packageName is the CUE package every layer is compiled into. A layer may
// omit its package clause or name another package; it is rewritten.
const packageName = "ollm"

// Positions inside embedded files carry these prefixes.
const (
	schemaPrefix  = "<schema>/"
	builtinPrefix = "<builtin>/"
)

// listPaths are the lists that layers extend rather than set: each layer's
// entries are collected and concatenated in layer order before
// unification, so a user rule cannot replace a team rule.
var listPaths = [][]string{
	{"policy", "rules"},
	{"hooks", "definitions"},
	{"extensions", "directories"},
}

// layer is one parsed profile file.
type layer struct {
	scope schema.Scope
	file  *ast.File
	path  string
	data  []byte
}

// collected holds the concatenated list entries and the layer of each.
type collected struct {
	elts   [][]ast.Expr // per listPaths index
	scopes [][]schema.Scope
	dirs   [][]string // the directory of the layer each entry came from
}

// dir is the directory relative paths in the layer resolve against: the
// directory of its file ("" for the builtin layer).
func (l *layer) dir() string {
	if l.scope == schema.ScopeBuiltin || l.path == "" {
		return ""
	}
	return filepath.Dir(l.path)
}

func parseLayer(scope schema.Scope, name string, data []byte) (*layer, error) {
	f, err := parser.ParseFile(name, data, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	setPackage(f)
	return &layer{scope: scope, file: f, path: name, data: data}, nil
}

// setPackage makes f part of packageName.
func setPackage(f *ast.File) {
	for _, d := range f.Decls {
		if p, ok := d.(*ast.Package); ok {
			p.Name = ast.NewIdent(packageName)
			return
		}
	}
	f.Decls = append([]ast.Decl{&ast.Package{Name: ast.NewIdent(packageName)}}, f.Decls...)
}

// extractLists removes the extendable lists from every layer and returns
// their entries in layer order.
func extractLists(layers []*layer) collected {
	c := collected{elts: make([][]ast.Expr, len(listPaths)), scopes: make([][]schema.Scope, len(listPaths)), dirs: make([][]string, len(listPaths))}
	for _, l := range layers {
		for i, p := range listPaths {
			for _, list := range takeFields(&l.file.Decls, p) {
				ll, ok := list.(*ast.ListLit)
				if !ok {
					continue
				}
				for _, e := range ll.Elts {
					if _, isEllipsis := e.(*ast.Ellipsis); isEllipsis {
						continue
					}
					c.elts[i] = append(c.elts[i], e)
					c.scopes[i] = append(c.scopes[i], l.scope)
					c.dirs[i] = append(c.dirs[i], l.dir())
				}
			}
		}
	}
	return c
}

// takeFields removes every field at path whose value is a list literal and
// returns those values. Fields with other values stay where they are.
func takeFields(decls *[]ast.Decl, path []string) []ast.Expr {
	var out []ast.Expr
	for _, f := range removeFields(decls, path, func(f *ast.Field) bool {
		_, isList := f.Value.(*ast.ListLit)
		return isList
	}) {
		out = append(out, f.Value)
	}
	return out
}

// removeFields removes the fields at path for which take reports true and
// returns them; intermediate structs stay.
func removeFields(decls *[]ast.Decl, path []string, take func(*ast.Field) bool) []*ast.Field {
	var out []*ast.Field
	kept := (*decls)[:0:0]
	for _, d := range *decls {
		f, ok := d.(*ast.Field)
		if !ok || labelName(f.Label) != path[0] {
			kept = append(kept, d)
			continue
		}
		if len(path) == 1 {
			if take(f) {
				out = append(out, f)
				continue
			}
		} else if s, ok := f.Value.(*ast.StructLit); ok {
			out = append(out, removeFields(&s.Elts, path[1:], take)...)
		}
		kept = append(kept, d)
	}
	*decls = kept
	return out
}

// findFields returns the fields at path (a label of "*" matches any) and
// their full label paths.
func findFields(decls []ast.Decl, path []string) []*ast.Field {
	var out []*ast.Field
	for _, d := range decls {
		f, ok := d.(*ast.Field)
		if !ok || (path[0] != "*" && labelName(f.Label) != path[0]) {
			continue
		}
		if len(path) == 1 {
			out = append(out, f)
			continue
		}
		if s, ok := f.Value.(*ast.StructLit); ok {
			out = append(out, findFields(s.Elts, path[1:])...)
		}
	}
	return out
}

// dropField removes every field at path and returns their positions.
func dropField(decls *[]ast.Decl, path []string) []token.Pos {
	var out []token.Pos
	for _, f := range removeFields(decls, path, func(*ast.Field) bool { return true }) {
		out = append(out, f.Pos())
	}
	return out
}

func labelName(l ast.Label) string {
	name, _, err := ast.LabelName(l)
	if err != nil {
		return ""
	}
	return name
}

// listsFile is the synthetic file holding the concatenated lists.
func listsFile(c collected) *ast.File {
	f := &ast.File{Filename: "<lists>"}
	f.Decls = append(f.Decls, &ast.Package{Name: ast.NewIdent(packageName)})
	for i, p := range listPaths {
		if len(c.elts[i]) == 0 {
			continue
		}
		f.Decls = append(f.Decls, &ast.Field{
			Label: ast.NewIdent(p[0]),
			Value: ast.NewStruct(ast.NewIdent(p[1]), &ast.ListLit{Elts: c.elts[i]}),
		})
	}
	return f
}
