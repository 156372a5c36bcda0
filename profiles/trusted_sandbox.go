package profiles

import (
	"encoding/json"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/ollm/ollm/schema"
)

// trustedSandbox is the sandbox block of the layers the user trusts (the
// builtin, team and user layers, without the workspace's): what the
// user's own hooks run under, so that no workspace value (a denyRead
// naming the user's hook directory, a read-only sandbox.hooks) can make a
// guard of the user fail and let the call it guards through. nil when no
// workspace layer can set the sandbox block: the resolved one is the
// trusted one. A second evaluation is paid only then.
func trustedSandbox(c *compiler, layers []*layer, lists collected) *schema.SandboxConfig {
	var trusted []*layer
	ws := false
	for _, l := range layers {
		if l.scope != schema.ScopeWorkspace {
			trusted = append(trusted, l)
			continue
		}
		if setsSandbox(l.file.Decls) {
			ws = true
		}
	}
	if !ws {
		return nil
	}
	var own collected
	own.elts, own.scopes, own.dirs = make([][]ast.Expr, len(listPaths)), make([][]schema.Scope, len(listPaths)), make([][]string, len(listPaths))
	for i := range listPaths {
		for j, e := range lists.elts[i] {
			if lists.scopes[i][j] != schema.ScopeWorkspace {
				own.elts[i] = append(own.elts[i], e)
				own.scopes[i] = append(own.scopes[i], lists.scopes[i][j])
				own.dirs[i] = append(own.dirs[i], lists.dirs[i][j])
			}
		}
	}
	out := &schema.SandboxConfig{}
	v, err := c.unifyProfile(trusted, listsFile(own))
	if err != nil {
		return out // the user's layers alone do not evaluate: the defaults
	}
	data, err := v.LookupPath(cue.ParsePath("sandbox")).MarshalJSON()
	if err == nil {
		_ = json.Unmarshal(data, out)
	}
	return out
}

// setsSandbox reports whether decls may set the sandbox block: a field
// named sandbox, or a form a field-by-field reading cannot see into (an
// embedding, a comprehension).
func setsSandbox(decls []ast.Decl) bool {
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.Field:
			if labelName(d.Label) == "sandbox" || labelName(d.Label) == "" {
				return true
			}
		case *ast.Package, *ast.ImportDecl, *ast.CommentGroup, *ast.Attribute:
		default:
			return true
		}
	}
	return false
}
