package profiles

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/ollm/ollm/schema"
)

// Trust classes, read from the @trust attributes of cue/profile.cue.
const (
	classNeutral = "neutral" // changes nothing that runs, reads, sends or is allowed
	classNarrow  = "narrow"  // only restricts
	classWiden   = "widen"   // makes something run, read, send or be allowed
)

// trustClass is the class of one schema field.
type trustClass struct {
	kind   string
	unless []string // literal values that do not widen
	atMost *float64 // numbers at most this (the schema default) do not widen
	// builtin is the schema's default as a literal (literalText), "" when
	// it has none: a layer restating it changes nothing.
	builtin string
}

// classTable maps schema paths to classes. Paths join field names with
// "."; a map's keys are "*" and a list's elements "[]".
type classTable struct {
	class    map[string]trustClass
	children map[string]bool // paths whose fields are classed one by one
	maps     map[string]bool // paths of maps (pattern constraints)
	lists    map[string]bool // paths of lists of structs classed per element
}

var (
	classesOnce sync.Once
	classes     *classTable
	classesErr  error
)

// trustClasses reads the classes from the embedded schema, once.
func trustClasses() (*classTable, error) {
	classesOnce.Do(func() {
		c, err := newCompiler()
		if err != nil {
			classesErr = err
			return
		}
		t := &classTable{class: map[string]trustClass{}, children: map[string]bool{}, maps: map[string]bool{}, lists: map[string]bool{}}
		classesErr = t.walk(c.def("Profile"), "")
		classes = t
	})
	return classes, classesErr
}

// walk records the class of every field under v. A field without a class
// must be a struct, a map or a list of structs whose fields are classed.
func (t *classTable) walk(v cue.Value, path string) error {
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return err
	}
	for it.Next() {
		name := strings.TrimRight(it.Selector().String(), "?!")
		p := joinPath(path, name)
		fv := it.Value()
		cls, ok, err := readClass(fv)
		if err != nil {
			return fmt.Errorf("schema field %s: %w", p, err)
		}
		if ok {
			t.class[p] = cls
			continue
		}
		if err := t.walkUnclassed(fv, p); err != nil {
			return err
		}
	}
	return nil
}

func (t *classTable) walkUnclassed(v cue.Value, p string) error {
	switch {
	case v.IncompleteKind() == cue.ListKind:
		ev := v.LookupPath(cue.MakePath(cue.AnyIndex))
		if !ev.Exists() || ev.IncompleteKind() != cue.StructKind {
			return fmt.Errorf("schema field %s has no @trust class", p)
		}
		t.lists[p] = true
		return t.walk(ev, p+".[]")
	case v.IncompleteKind() == cue.StructKind:
		t.children[p] = true
		if pv := v.LookupPath(cue.MakePath(cue.AnyString)); pv.Exists() {
			t.maps[p] = true
			if cls, ok, err := readClass(pv); err != nil || ok {
				t.class[p+".*"] = cls
				return err
			}
			t.children[p+".*"] = true
			return t.walk(pv, p+".*")
		}
		return t.walk(v, p)
	}
	return fmt.Errorf("schema field %s has no @trust class", p)
}

func readClass(v cue.Value) (trustClass, bool, error) {
	a := v.Attribute("trust")
	if a.Err() != nil {
		return trustClass{}, false, nil
	}
	kind, err := a.String(0)
	if err != nil {
		return trustClass{}, false, err
	}
	cls := trustClass{kind: kind, builtin: defaultText(v)}
	switch kind {
	case classNeutral, classNarrow, classWiden:
	default:
		return cls, false, fmt.Errorf("unknown @trust class %q", kind)
	}
	unless, found, err := a.Lookup(1, "unless")
	if err != nil || !found {
		return cls, true, err
	}
	if unless == "<=default" {
		d, ok := v.Default()
		f, err := d.Float64()
		if !ok || err != nil {
			return cls, false, fmt.Errorf("@trust unless=<=default on a field without a numeric default")
		}
		cls.atMost = &f
		return cls, true, nil
	}
	cls.unless = strings.Split(unless, "|")
	return cls, true, nil
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// gate removes the widening values of an untrusted layer from its syntax
// tree, before unification, and returns what it removed. Whatever cannot
// be classified (definitions, comprehensions, computed labels, an
// expression where a struct is expected) counts as widening.
type gate struct {
	t    *classTable
	l    *layer
	held []schema.HeldValue
}

func gateLayer(t *classTable, l *layer) []schema.HeldValue {
	g := &gate{t: t, l: l}
	l.file.Decls = g.decls(l.file.Decls, "", "")
	return g.held
}

// decls gates the declarations of a struct at schema path sp (shown as
// field path fp).
func (g *gate) decls(decls []ast.Decl, sp, fp string) []ast.Decl {
	kept := decls[:0:0]
	for _, d := range decls {
		switch x := d.(type) {
		case *ast.Package, *ast.ImportDecl, *ast.CommentGroup, *ast.Attribute, *ast.LetClause, *ast.Ellipsis:
			kept = append(kept, d)
		case *ast.EmbedDecl:
			if s, ok := x.Expr.(*ast.StructLit); ok {
				s.Elts = g.decls(s.Elts, sp, fp)
				kept = append(kept, d)
				continue
			}
			g.hold(fp, d, "an embedded expression cannot be classified before approval")
		case *ast.Comprehension:
			g.hold(fp, d, "a comprehension (if/for) cannot be classified before approval")
		case *ast.Field:
			if g.field(x, sp, fp) {
				kept = append(kept, d)
			}
		default:
			g.hold(fp, d, "a declaration that cannot be classified before approval")
		}
	}
	return kept
}

// field gates one field and reports whether it stays.
func (g *gate) field(f *ast.Field, sp, fp string) bool {
	name, _, err := ast.LabelName(f.Label)
	if err != nil {
		g.hold(fp, f, "a computed label or pattern cannot be classified before approval")
		return false
	}
	if strings.HasPrefix(name, "_") {
		return true // hidden: not part of the profile
	}
	if strings.HasPrefix(name, "#") {
		g.hold(joinPath(fp, name), f, "a definition can change the schema")
		return false
	}
	csp := joinPath(sp, name)
	if g.t.maps[sp] {
		csp = joinPath(sp, "*")
	}
	cfp := joinPath(fp, name)
	if cls, ok := g.t.class[csp]; ok {
		if reason := cls.widens(f.Value); reason != "" {
			g.hold(cfp, f, reason)
			return false
		}
		return true
	}
	switch {
	case g.t.lists[csp]:
		return g.list(f, csp, cfp)
	case g.t.children[csp]:
		s, ok := f.Value.(*ast.StructLit)
		if !ok {
			g.hold(cfp, f, "an expression where a struct is expected cannot be classified before approval")
			return false
		}
		s.Elts = g.decls(s.Elts, csp, cfp)
		return true
	}
	return true // not in the schema: validation reports it
}

// list gates a list of structs element by element: an element with any
// widening value is held whole.
func (g *gate) list(f *ast.Field, sp, fp string) bool {
	ll, ok := f.Value.(*ast.ListLit)
	if !ok {
		g.hold(fp, f, "an expression where a list is expected cannot be classified before approval")
		return false
	}
	kept := ll.Elts[:0:0]
	for i, e := range ll.Elts {
		efp := fmt.Sprintf("%s[%d]", fp, i)
		s, ok := e.(*ast.StructLit)
		if !ok {
			if _, ell := e.(*ast.Ellipsis); ell {
				kept = append(kept, e)
				continue
			}
			g.hold(efp, e, "an expression where a struct is expected cannot be classified before approval")
			continue
		}
		src := shortSource(e)
		sub := &gate{t: g.t, l: g.l}
		s.Elts = sub.decls(s.Elts, sp+".[]", efp)
		if len(sub.held) > 0 {
			g.hold(efp, e, sub.held[0].Reason+" ("+strings.TrimPrefix(sub.held[0].Field, efp+".")+")")
			g.held[len(g.held)-1].Value = src
			continue
		}
		kept = append(kept, e)
	}
	ll.Elts = kept
	return true
}

// widens says why v widens under the class, or "" when it does not. A
// literal equal to the schema's default does not widen, nor does a
// disjunction with one default (*x | ...) whose default does not: its
// other alternatives only admit what another layer sets concretely (the
// user's own choice), and never add a value the schema refuses.
func (c trustClass) widens(v ast.Expr) string {
	switch c.kind {
	case classNeutral, classNarrow:
		return ""
	}
	if p, ok := v.(*ast.ParenExpr); ok {
		return c.widens(p.X)
	}
	if d, ok := onlyDefault(v); ok {
		return c.widens(d)
	}
	if t, ok := literalText(v); ok && c.builtin != "" && t == c.builtin {
		return ""
	}
	lit, isLit := v.(*ast.BasicLit)
	switch {
	case c.atMost != nil:
		if isLit && (lit.Kind == token.INT || lit.Kind == token.FLOAT) {
			if n, err := strconv.ParseFloat(strings.ReplaceAll(lit.Value, "_", ""), 64); err == nil && n <= *c.atMost {
				return ""
			}
		}
		return fmt.Sprintf("a value above the default %g widens what runs", *c.atMost)
	case len(c.unless) > 0:
		if isLit {
			val := lit.Value
			if lit.Kind == token.STRING {
				if s, err := literalString(lit); err == nil {
					val = s
				}
			}
			for _, u := range c.unless {
				if val == u {
					return ""
				}
			}
		}
		return "only " + strings.Join(c.unless, " or ") + " apply before approval"
	}
	return "it widens what runs, reads, sends or is allowed"
}

// onlyDefault is the x of a disjunction with exactly one default (*x),
// and false for anything else.
func onlyDefault(v ast.Expr) (ast.Expr, bool) {
	var terms []ast.Expr
	var collect func(e ast.Expr)
	collect = func(e ast.Expr) {
		switch x := e.(type) {
		case *ast.BinaryExpr:
			if x.Op == token.OR {
				collect(x.X)
				collect(x.Y)
				return
			}
		case *ast.ParenExpr:
			if b, ok := x.X.(*ast.BinaryExpr); ok && b.Op == token.OR {
				collect(b)
				return
			}
		}
		terms = append(terms, e)
	}
	for p, ok := v.(*ast.ParenExpr); ok; p, ok = v.(*ast.ParenExpr) {
		v = p.X
	}
	if b, ok := v.(*ast.BinaryExpr); !ok || b.Op != token.OR {
		return nil, false
	}
	collect(v)
	var def ast.Expr
	for _, t := range terms {
		if u, ok := t.(*ast.UnaryExpr); ok && u.Op == token.MUL {
			if def != nil {
				return nil, false
			}
			def = u.X
		}
	}
	return def, def != nil
}

// literalText is a scalar literal's value as text: a string unquoted, a
// number in Go's %g form, a bool as true or false.
func literalText(v ast.Expr) (string, bool) {
	lit, ok := v.(*ast.BasicLit)
	if !ok {
		return "", false
	}
	switch lit.Kind {
	case token.STRING:
		s, err := literalString(lit)
		return s, err == nil
	case token.INT, token.FLOAT:
		n, err := strconv.ParseFloat(strings.ReplaceAll(lit.Value, "_", ""), 64)
		return strconv.FormatFloat(n, 'g', -1, 64), err == nil
	case token.TRUE, token.FALSE:
		return lit.Value, true
	}
	return "", false
}

// defaultText is the default of a schema field as literalText renders
// it, or "" when the field has no scalar default.
func defaultText(v cue.Value) string {
	d, ok := v.Default()
	if !ok || !d.IsConcrete() {
		return ""
	}
	switch d.Kind() {
	case cue.StringKind:
		s, _ := d.String()
		return s
	case cue.IntKind, cue.FloatKind:
		f, err := d.Float64()
		if err != nil {
			return ""
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case cue.BoolKind:
		b, _ := d.Bool()
		return strconv.FormatBool(b)
	}
	return ""
}

func literalString(lit *ast.BasicLit) (string, error) {
	return strconv.Unquote(lit.Value)
}

// hold records n as held back.
func (g *gate) hold(field string, n ast.Node, reason string) {
	if field == "" {
		field = "(top level)"
	}
	pos := n.Pos()
	g.held = append(g.held, schema.HeldValue{Field: field, File: g.l.path, Pos: pos.String(), Value: shortSource(n), Reason: reason})
}

// shortSource renders n as CUE on one line, shortened.
func shortSource(n ast.Node) (s string) {
	defer func() {
		if recover() != nil { // the formatter does not print every lone declaration
			s = ""
		}
	}()
	if f, ok := n.(*ast.Field); ok {
		n = f.Value // the field path is shown beside it
	} else if d, ok := n.(ast.Decl); ok {
		if _, isExpr := n.(ast.Expr); !isExpr {
			n = &ast.StructLit{Elts: []ast.Decl{d}}
		}
	}
	b, err := format.Node(n, format.Simplify())
	if err != nil {
		return ""
	}
	s = redactSource(string(b))
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// redactSource replaces the string values of secret-looking fields
// (token, *_KEY, Authorization, ...) in CUE source, and joins it on one
// line. Its input is formatted syntax, so it parses.
func redactSource(src string) string {
	e, err := parser.ParseExpr("held", src)
	if err != nil {
		return strings.Join(strings.Fields(src), " ")
	}
	ast.Walk(e, func(n ast.Node) bool {
		if f, ok := n.(*ast.Field); ok {
			if name, _, err := ast.LabelName(f.Label); err == nil && LooksSecret(name) {
				if lit, ok := f.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					lit.Value = strconv.Quote(Redacted)
				}
			}
		}
		return true
	}, nil)
	b, err := format.Node(e)
	if err != nil {
		return ""
	}
	return strings.Join(strings.Fields(string(b)), " ")
}
