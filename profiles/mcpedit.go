package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/ollm/ollm/schema"
)

// ErrMCPServerNotFound is returned by RemoveMCPServer when the file does not
// declare the server.
var ErrMCPServerNotFound = errors.New("MCP server not declared")

// AddMCPServer declares mcp.servers.<name> as cfg in the profile file
// filename whose bytes are data (empty for a new file) and returns the new
// bytes, edited through the CUE AST so that comments and layout survive. A
// server of that name already declared in the file is an *Error naming its
// file:line; nothing is replaced.
func AddMCPServer(filename string, data []byte, name string, cfg schema.MCPServer) ([]byte, error) {
	f, err := parseForEdit(filename, data)
	if err != nil {
		return nil, err
	}
	if found := serverFields(f, name); len(found) > 0 {
		return nil, existsError(filename, name, found[0].fld)
	}
	text, err := serverText(cfg)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %w", name, err)
	}
	value, err := parser.ParseExpr("server", text)
	if err != nil {
		return nil, err
	}
	if servers := findStruct(f.Decls, "mcp", "servers"); servers != nil {
		setField(&servers.Elts, name, value)
	} else if m := findStruct(f.Decls, "mcp"); m != nil {
		if err := appendDecls(&m.Elts, "servers: {\n\t"+cueLabel(name)+": "+text+"\n}\n", token.Newline); err != nil {
			return nil, err
		}
	} else {
		rel := token.NewSection
		if len(f.Decls) == 0 && len(f.Comments()) == 0 {
			rel = token.NoRelPos
		}
		if err := appendDecls(&f.Decls, "mcp: servers: {\n\t"+cueLabel(name)+": "+text+"\n}\n", rel); err != nil {
			return nil, err
		}
	}
	return formatFile(f)
}

// RemoveMCPServer deletes every declaration of mcp.servers.<name> from the
// profile file and returns the new bytes; a servers or mcp struct left empty
// by that goes too. A file that does not declare the server gives an error
// wrapping ErrMCPServerNotFound.
func RemoveMCPServer(filename string, data []byte, name string) ([]byte, error) {
	f, err := parseForEdit(filename, data)
	if err != nil {
		return nil, err
	}
	found := serverFields(f, name)
	if len(found) == 0 {
		return nil, fmt.Errorf("%s: %w: %q", filename, ErrMCPServerNotFound, name)
	}
	for _, m := range found {
		removeDecl(m.parent, m.fld)
		if len(*m.parent) == 0 && m.servers != nil {
			removeDecl(m.serversParent, m.servers)
		}
	}
	pruneEmpty(&f.Decls, "mcp")
	return formatFile(f)
}

// FindMCPServer reports where the profile file declares mcp.servers.<name>
// ("file:line"), or "" when it does not.
func FindMCPServer(filename string, data []byte, name string) (string, error) {
	f, err := parseForEdit(filename, data)
	if err != nil {
		return "", err
	}
	if found := serverFields(f, name); len(found) > 0 {
		return lineOf(filename, found[0].fld), nil
	}
	return "", nil
}

// parseForEdit parses a profile file for editing; empty data is an empty
// file.
func parseForEdit(filename string, data []byte) (*ast.File, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &ast.File{Filename: filename}, nil
	}
	f, err := parser.ParseFile(filename, data, parser.ParseComments)
	if err != nil {
		return nil, &Error{Diags: diagnostics(err, nil), Fix: "fix the syntax error, then run the command again"}
	}
	return f, nil
}

func formatFile(f *ast.File) ([]byte, error) {
	out, err := format.Node(f)
	if err != nil {
		return nil, fmt.Errorf("format %s: %w", f.Filename, err)
	}
	return out, nil
}

// serverMatch is one declaration of a server: the field, the declaration
// list holding it, and the servers field around that list.
type serverMatch struct {
	fld           *ast.Field
	parent        *[]ast.Decl
	servers       *ast.Field
	serversParent *[]ast.Decl
}

// serverFields finds every mcp.servers.<name> field; CUE lets a file
// declare mcp (and servers) more than once.
func serverFields(f *ast.File, name string) []serverMatch {
	var out []serverMatch
	for _, m := range fieldsNamed(&f.Decls, "mcp") {
		ms, ok := m.Value.(*ast.StructLit)
		if !ok {
			continue
		}
		for _, s := range fieldsNamed(&ms.Elts, "servers") {
			ss, ok := s.Value.(*ast.StructLit)
			if !ok {
				continue
			}
			for _, fld := range fieldsNamed(&ss.Elts, name) {
				out = append(out, serverMatch{fld: fld, parent: &ss.Elts, servers: s, serversParent: &ms.Elts})
			}
		}
	}
	return out
}

// fieldsNamed lists the fields labelled name among decls.
func fieldsNamed(decls *[]ast.Decl, name string) []*ast.Field {
	var out []*ast.Field
	for _, d := range *decls {
		if fld, ok := d.(*ast.Field); ok && labelName(fld.Label) == name {
			out = append(out, fld)
		}
	}
	return out
}

func removeDecl(decls *[]ast.Decl, fld *ast.Field) {
	for i, d := range *decls {
		if d == ast.Decl(fld) {
			*decls = append((*decls)[:i], (*decls)[i+1:]...)
			return
		}
	}
}

// pruneEmpty removes the fields called name whose struct value is empty.
func pruneEmpty(decls *[]ast.Decl, name string) {
	for _, fld := range fieldsNamed(decls, name) {
		if s, ok := fld.Value.(*ast.StructLit); ok && len(s.Elts) == 0 {
			removeDecl(decls, fld)
		}
	}
}

// appendDecls parses text as declarations and appends them to decls, the
// first placed rel to what comes before.
func appendDecls(decls *[]ast.Decl, text string, rel token.RelPos) error {
	sub, err := parser.ParseFile("server", text)
	if err != nil {
		return err
	}
	if rel != token.NoRelPos {
		ast.SetRelPos(sub.Decls[0], rel)
	}
	*decls = append(*decls, sub.Decls...)
	return nil
}

func existsError(filename, name string, fld *ast.Field) error {
	return &Error{
		Diags: []Diagnostic{{
			Pos:     lineOf(filename, fld),
			Path:    "mcp.servers." + name,
			Message: fmt.Sprintf("MCP server %q is already declared here", name),
		}},
		Fix: fmt.Sprintf("Pick another name, or remove it first: ollm mcp remove %s", name),
	}
}

// lineOf is "file:line" of a field.
func lineOf(filename string, fld *ast.Field) string {
	return fmt.Sprintf("%s:%d", filename, fld.Pos().Line())
}

// serverText renders cfg as a CUE struct, one field a line: transport
// (when not stdio), command, args, env, cwd, url, headers, timeout,
// includeTools, excludeTools. Maps are sorted.
func serverText(cfg schema.MCPServer) (string, error) {
	type kv struct {
		label string
		value any
	}
	var fields []kv
	if cfg.Transport != "" && cfg.Transport != "stdio" {
		fields = append(fields, kv{"transport", cfg.Transport})
	}
	if cfg.Command != "" {
		fields = append(fields, kv{"command", cfg.Command})
	}
	if len(cfg.Args) > 0 {
		fields = append(fields, kv{"args", cfg.Args})
	}
	if len(cfg.Env) > 0 {
		fields = append(fields, kv{"env", cfg.Env})
	}
	if cfg.Cwd != "" {
		fields = append(fields, kv{"cwd", cfg.Cwd})
	}
	if cfg.URL != "" {
		fields = append(fields, kv{"url", cfg.URL})
	}
	if len(cfg.Headers) > 0 {
		fields = append(fields, kv{"headers", cfg.Headers})
	}
	if cfg.Timeout > 0 {
		fields = append(fields, kv{"timeout", cfg.Timeout})
	}
	if len(cfg.IncludeTools) > 0 {
		fields = append(fields, kv{"includeTools", cfg.IncludeTools})
	}
	if len(cfg.ExcludeTools) > 0 {
		fields = append(fields, kv{"excludeTools", cfg.ExcludeTools})
	}
	var b strings.Builder
	b.WriteString("{\n")
	for _, f := range fields {
		js, err := json.Marshal(f.value) // maps marshal with sorted keys
		if err != nil {
			return "", err
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		b.WriteString("\t" + cueLabel(f.label) + ": ")
		if err := writeCUEValue(dec, &b); err != nil {
			return "", err
		}
		b.WriteString("\n")
	}
	b.WriteString("}")
	return b.String(), nil
}
