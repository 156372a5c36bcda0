package profiles

import (
	"fmt"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	ollmcue "github.com/ollm/ollm/cue"
	"github.com/ollm/ollm/profiles/builtin"
)

// compiler owns one cue.Context (not safe for concurrent use) and the
// schema compiled in it.
type compiler struct {
	ctx    *cue.Context
	schema cue.Value
}

func newCompiler() (*compiler, error) {
	ctx := cuecontext.New()
	files, err := schemaFiles()
	if err != nil {
		return nil, err
	}
	inst := build.NewContext().NewInstance("", nil)
	for _, f := range files {
		if err := inst.AddSyntax(f); err != nil {
			return nil, err
		}
	}
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("embedded schema does not compile (a bug in ollm): %s", errors.Details(err, nil))
	}
	return &compiler{ctx: ctx, schema: v}, nil
}

// compilers keeps compiled schemas for the next user in this process:
// compiling one costs ~5 ms, and `ollm profile apply` resolves the
// profile up to four times and validates each fetched manifest. A
// cue.Context is not for concurrent use, so a compiler belongs to one
// user between get and put. A kept compiler only validates manifests
// (BuildExpr, which the context does not keep: a loop of 12,000
// validations left the heap where it was); the profile is built in a
// context of its own (unifyProfile).
var compilers compilerPool

type compilerPool struct {
	mu   sync.Mutex
	free []*compiler
}

// get returns a kept compiler or compiles a new one.
func (p *compilerPool) get() (*compiler, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		c := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	return newCompiler()
}

// put keeps c for the next get; two are enough for the loads that
// overlap in one process.
func (p *compilerPool) put(c *compiler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < 2 {
		p.free = append(p.free, c)
	}
}

func (p *compilerPool) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = nil
}

// schemaFiles parses the embedded schema. They are parsed afresh for each
// instance because an AST belongs to the instance it is added to.
func schemaFiles() ([]*ast.File, error) {
	var out []*ast.File
	for i, data := range schemaFilesData() {
		name := ollmcue.Files[i]
		f, err := parser.ParseFile(schemaPrefix+name, data)
		if err != nil {
			return nil, fmt.Errorf("embedded schema: %v", err)
		}
		out = append(out, f)
	}
	return out, nil
}

// schemaFilesData returns the embedded schema files followed by the
// builtin profile.
func schemaFilesData() [][]byte {
	var out [][]byte
	for _, name := range ollmcue.Files {
		data, err := ollmcue.FS.ReadFile(name)
		if err != nil {
			panic("embedded schema file missing: " + name) // impossible: embedded at build time
		}
		out = append(out, data)
	}
	return out
}

func builtinLayer() (*layer, error) {
	data, err := builtin.FS.ReadFile("default.cue")
	if err != nil {
		return nil, err
	}
	return parseLayer("builtin", builtinPrefix+"default.cue", data)
}

func (c *compiler) def(name string) cue.Value {
	return c.schema.LookupPath(cue.MakePath(cue.Def(name)))
}

// unifyProfile builds the schema, every layer and the concatenated lists
// as one instance, closes it with #Profile and validates it. It builds in
// a context of its own: a context keeps every instance built in it, and
// c may serve many resolves (compilers).
func (c *compiler) unifyProfile(layers []*layer, lists *ast.File) (cue.Value, error) {
	inst := build.NewContext().NewInstance("", nil)
	files, err := schemaFiles()
	if err != nil {
		return cue.Value{}, err
	}
	for _, l := range layers {
		files = append(files, l.file)
	}
	files = append(files, lists)
	for _, f := range files {
		if err := inst.AddSyntax(f); err != nil {
			return cue.Value{}, &Error{Diags: diagnostics(err, nil), Fix: fixProfile}
		}
	}
	raw := cuecontext.New().BuildInstance(inst)
	v := raw.LookupPath(cue.MakePath(cue.Def("Profile"))).Unify(raw)
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return v, &Error{Diags: diagnostics(err, userPosIn(v)), Fix: fixProfile}
	}
	return v, nil
}

// userPosIn finds, for a path, the nearest enclosing value with a position.
func userPosIn(v cue.Value) func([]string) token.Pos {
	return func(path []string) token.Pos {
		for n := len(path); n >= 0; n-- {
			sels := make([]cue.Selector, 0, n)
			for _, p := range path[:n] {
				sels = append(sels, cue.Str(p))
			}
			if p := v.LookupPath(cue.MakePath(sels...)).Pos(); p.IsValid() && !isSchemaFile(p.Filename()) {
				return p
			}
		}
		return token.NoPos
	}
}
