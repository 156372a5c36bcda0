package profiles

import (
	"encoding/json"
	"fmt"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/schema"
)

// AddSource sets extensions.sources.<name> to src in the profile file
// filename whose bytes are data (empty for a new file) and returns the new
// bytes. The file is edited through the CUE AST, so its comments, order
// and layout survive; an existing source of that name is replaced in
// place. Other packages call this rather than importing CUE.
func AddSource(filename string, data []byte, name string, src schema.Source) ([]byte, error) {
	f := &ast.File{Filename: filename}
	if len(data) > 0 {
		var err error
		f, err = parser.ParseFile(filename, data, parser.ParseComments)
		if err != nil {
			return nil, &Error{Diags: diagnostics(err, nil), Fix: "fix the syntax error, then run the command again"}
		}
	}
	label := labelText(name)
	value, err := parser.ParseExpr("source", sourceText(src))
	if err != nil {
		return nil, err
	}
	if sources := findStruct(f.Decls, "extensions", "sources"); sources != nil {
		setField(&sources.Elts, name, value)
	} else if ext := findStruct(f.Decls, "extensions"); ext != nil {
		sub, err := parser.ParseFile("source", "sources: "+label+": "+sourceText(src)+"\n")
		if err != nil {
			return nil, err
		}
		ast.SetRelPos(sub.Decls[0], token.Newline)
		ext.Elts = append(ext.Elts, sub.Decls...)
	} else {
		sub, err := parser.ParseFile("source", "extensions: sources: {\n\t"+label+": "+sourceText(src)+"\n}\n")
		if err != nil {
			return nil, err
		}
		if len(f.Decls) > 0 {
			ast.SetRelPos(sub.Decls[0], token.NewSection)
		}
		f.Decls = append(f.Decls, sub.Decls...)
	}
	out, err := format.Node(f)
	if err != nil {
		return nil, fmt.Errorf("format %s: %w", filename, err)
	}
	return out, nil
}

// FindSource returns extensions.sources.<name> as the profile file
// filename (bytes data) declares it and where ("file:line"); found is
// false when it declares no source of that name. Fields that are not
// plain strings are left empty.
func FindSource(filename string, data []byte, name string) (src schema.Source, pos string, found bool, err error) {
	if len(data) == 0 {
		return src, "", false, nil
	}
	f, err := parser.ParseFile(filename, data, parser.ParseComments)
	if err != nil {
		return src, "", false, &Error{Diags: diagnostics(err, nil), Fix: "fix the syntax error, then run the command again"}
	}
	fld := findField(f.Decls, "extensions", "sources", name)
	if fld == nil {
		return src, "", false, nil
	}
	if lit, ok := fld.Value.(*ast.StructLit); ok {
		for _, d := range lit.Elts {
			kv, ok := d.(*ast.Field)
			if !ok {
				continue
			}
			bl, ok := kv.Value.(*ast.BasicLit)
			if !ok || bl.Kind != token.STRING {
				continue
			}
			v, err := literal.Unquote(bl.Value)
			if err != nil {
				continue
			}
			switch labelName(kv.Label) {
			case "git":
				src.Git = v
			case "path":
				src.Path = v
			case "ref":
				src.Ref = v
			case "subdir":
				src.Subdir = v
			case "plugin":
				src.Plugin = v
			}
		}
	}
	return src, lineOf(filename, fld), true, nil
}

// findField returns the field at path among decls, looking into every
// struct of each name on the way (CUE allows a field to be declared
// twice).
func findField(decls []ast.Decl, path ...string) *ast.Field {
	for _, d := range decls {
		fld, ok := d.(*ast.Field)
		if !ok || labelName(fld.Label) != path[0] {
			continue
		}
		if len(path) == 1 {
			return fld
		}
		if s, ok := fld.Value.(*ast.StructLit); ok {
			if found := findField(s.Elts, path[1:]...); found != nil {
				return found
			}
		}
	}
	return nil
}

// SourceString is src as ollm prints it: git or path, @ref, //subdir.
func SourceString(src schema.Source) string {
	s := src.Git
	if s == "" {
		s = src.Path
	}
	if src.Subdir != "" {
		s += "//" + src.Subdir
	}
	if src.Plugin != "" {
		s += "#" + src.Plugin
	}
	if src.Ref != "" {
		s += "@" + src.Ref
	}
	return s
}

// sourceText is {git: "...", ref: "..."} with the fields that are set.
func sourceText(src schema.Source) string {
	var parts []string
	for _, kv := range [][2]string{{"git", src.Git}, {"path", src.Path}, {"ref", src.Ref}, {"subdir", src.Subdir}, {"plugin", src.Plugin}} {
		if kv[1] != "" {
			q, _ := json.Marshal(kv[1])
			parts = append(parts, kv[0]+": "+string(q))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// labelText is name as a CUE label: an identifier when it can be one.
func labelText(name string) string {
	if identRE.MatchString(name) {
		return name
	}
	q, _ := json.Marshal(name)
	return string(q)
}

var identRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// findStruct returns the struct literal at path among decls, looking into
// every field of that name (CUE allows a field to be declared twice).
func findStruct(decls []ast.Decl, path ...string) *ast.StructLit {
	for _, d := range decls {
		fld, ok := d.(*ast.Field)
		if !ok || labelName(fld.Label) != path[0] {
			continue
		}
		s, ok := fld.Value.(*ast.StructLit)
		if !ok {
			continue
		}
		if len(path) == 1 {
			return s
		}
		if found := findStruct(s.Elts, path[1:]...); found != nil {
			return found
		}
	}
	return nil
}

// setField replaces the value of field name in decls, or appends it.
func setField(decls *[]ast.Decl, name string, value ast.Expr) {
	for _, d := range *decls {
		if fld, ok := d.(*ast.Field); ok && labelName(fld.Label) == name {
			fld.Value = value
			return
		}
	}
	fld := &ast.Field{Label: ast.NewStringLabel(name), Value: value}
	if identRE.MatchString(name) {
		fld.Label = ast.NewIdent(name)
	}
	ast.SetRelPos(fld, token.Newline)
	*decls = append(*decls, fld)
}
