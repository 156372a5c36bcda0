package profiles

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// runDirs are the directories the workspace's hooks and MCP servers can
// run code from (store.RunDirs), read from what the workspace brings
// before any evaluation: the hooks and mcp blocks of its profile layers,
// its .mcp.json and its Claude settings. Their whole trees join the
// workspace digest, so editing a script a hook sources or a module a
// server imports asks again, not only editing the file its command line
// names. Every string of those blocks counts as a word (a command built
// from pieces still names them); outside lists the directories outside
// the workspace its profile names (extensions.directories), whose files
// count too.
func runDirs(in *inputs, root string, outside []string) []string {
	within := append([]string{root}, outside...)
	var out []string
	addAll := func(ds []string) {
		for _, d := range ds {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	for _, l := range in.layers {
		if l.scope != schema.ScopeWorkspace {
			continue
		}
		f, err := parser.ParseFile(l.path, l.data)
		if err != nil {
			continue
		}
		for _, top := range []string{"hooks", "mcp"} {
			for _, fl := range findFields(f.Decls, []string{top}) {
				addAll(cueCommands(fl.Value, root, within))
			}
		}
	}
	if in.mcp != nil {
		addAll(jsonCommands(in.mcp, root, within))
	}
	for _, c := range in.claude {
		if c.scope == schema.ScopeWorkspace {
			addAll(jsonCommands(c.data, root, within))
		}
	}
	slices.Sort(out)
	kept := out[:0]
	for _, d := range out {
		if !slices.ContainsFunc(kept, func(k string) bool { return d == k || strings.HasPrefix(d, k+string(filepath.Separator)) }) {
			kept = append(kept, d)
		}
	}
	return kept
}

// cueCommands finds the run directories of every struct under e: its
// command and args as one command line run in its cwd (the workspace when
// none), and every other string as a word run in the workspace.
func cueCommands(e ast.Expr, root string, within []string) []string {
	var out []string
	var loose []string
	ast.Walk(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.StructLit:
			var argv []string
			cwd := root
			for _, fl := range findFields(n.Elts, []string{"command"}) {
				argv = append(argv, cueStrings(fl.Value)...)
			}
			for _, fl := range findFields(n.Elts, []string{"args"}) {
				argv = append(argv, cueStrings(fl.Value)...)
			}
			for _, fl := range findFields(n.Elts, []string{"cwd"}) {
				if s := cueStrings(fl.Value); len(s) == 1 {
					cwd = inDir(root, s[0])
				}
			}
			if len(argv) > 0 {
				out = append(out, store.RunDirs(argv, cwd, within...)...)
			}
		case *ast.BasicLit:
			loose = append(loose, cueStrings(n)...)
		case *ast.Interpolation:
			loose = append(loose, cueStrings(n)...)
		}
		return true
	}, nil)
	for _, s := range loose {
		out = append(out, store.RunDirs([]string{s}, root, within...)...)
	}
	return out
}

// cueStrings are the string literals of e (an interpolation's literal
// pieces), unquoted.
func cueStrings(e ast.Expr) []string {
	var out []string
	ast.Walk(e, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		if s, err := literal.Unquote(lit.Value); err == nil {
			out = append(out, s)
			return true
		}
		// a piece of an interpolation: its text between the quotes
		out = append(out, strings.Trim(lit.Value, "\"\\()#"))
		return true
	}, nil)
	return out
}

// jsonCommands finds the run directories of every object of a JSON file
// with a "command" (.mcp.json servers, Claude settings hooks): command and
// args run in its cwd (the workspace when none).
func jsonCommands(data []byte, root string, within []string) []string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if cmd, ok := v["command"].(string); ok {
				argv := []string{cmd}
				if args, ok := v["args"].([]any); ok {
					for _, a := range args {
						if s, ok := a.(string); ok {
							argv = append(argv, s)
						}
					}
				}
				cwd := root
				if c, ok := v["cwd"].(string); ok && c != "" {
					cwd = inDir(root, c)
				}
				out = append(out, store.RunDirs(argv, cwd, within...)...)
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

func inDir(root, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}
