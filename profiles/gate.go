package profiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// This file is the one place where the trust boundary of a workspace is
// enforced. Until the user approves a workspace, the widening values of
// its profile and of every layer it brings (team profiles it extends) are
// taken out of their syntax trees before unification (trust.go), its
// .mcp.json servers are not merged and its .ollm/extensions are not
// loaded. Narrowing and neutral values apply at once.

// workspaceTrust computes the workspace digest over everything it brings
// and whether the user approved it. A user profile that sets
// hooks.trustWorkspace: true trusts every workspace.
func workspaceTrust(opts Options, in *inputs) (schema.Trust, error) {
	var t schema.Trust
	if opts.Workspace.Root == "" {
		return t, nil
	}
	var local, outside []string
	for _, l := range in.layers {
		if l.scope == schema.ScopeWorkspace {
			in, out := localPaths(l, opts.Workspace.Root)
			local = append(local, in...)
			outside = append(outside, out...)
		}
	}
	local = append(append(local, outside...), runDirs(in, opts.Workspace.Root, outside)...)
	local = append(local, geminiTrustFiles(opts.Workspace)...)
	d, err := store.WorkspaceDigest(opts.Workspace, local...)
	var tooBig *store.TreeLimitError
	if errors.As(err, &tooBig) {
		// Never approved: what it would cover cannot be hashed at every
		// start. The widening values stay held back, with this reason.
		t.Digest, t.Unapprovable = "unapprovable:"+tooBig.Dir, tooBig.Error()
		t.Approved = userTrustsWorkspaces(in)
		return t, nil
	}
	if err != nil {
		return t, &Error{Diags: []Diagnostic{{Pos: opts.Workspace.Root, Message: err.Error()}}, Fix: "check the permissions of the workspace's files"}
	}
	t.Digest = d
	if d == "" {
		return t, nil
	}
	if userTrustsWorkspaces(in) {
		t.Approved = true
		return t, nil
	}
	if opts.Unapproved {
		return t, nil
	}
	tw, err := store.LoadTrustedWorkspaces(opts.Home.TrustedWorkspaces())
	if err != nil {
		return t, err
	}
	t.Approved = tw.Approved(opts.Workspace.Root, d)
	return t, nil
}

// userTrustsWorkspaces reports whether the user profile sets
// hooks.trustWorkspace to the literal true.
func userTrustsWorkspaces(in *inputs) bool {
	for _, l := range in.layers {
		if l.scope != schema.ScopeUser {
			continue
		}
		f, err := parser.ParseFile(l.path, l.data)
		if err != nil {
			return false
		}
		for _, fl := range findFields(f.Decls, []string{"hooks", "trustWorkspace"}) {
			if lit, ok := fl.Value.(*ast.BasicLit); ok && lit.Value == "true" {
				return true
			}
		}
	}
	return false
}

// localPaths lists the local sources and extension directories a
// workspace profile names inside the workspace, and the extension
// directories it names outside it: their trees are part of what the
// workspace brings (an outside directory's servers run once the workspace
// is approved, so its files count as much as the workspace's own).
func localPaths(l layerInput, root string) (inside, outside []string) {
	f, err := parser.ParseFile(l.path, l.data)
	if err != nil {
		return nil, nil
	}
	var out []string
	anywhere := false
	add := func(e ast.Expr) {
		lit, ok := e.(*ast.BasicLit)
		if !ok {
			return
		}
		s, err := literal.Unquote(lit.Value)
		if err != nil || s == "" {
			return
		}
		p := s
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, rest)
			}
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		p = filepath.Clean(p)
		inRoot := p != root && strings.HasPrefix(p, root+string(filepath.Separator))
		switch {
		case inRoot && !slices.Contains(out, p):
			out = append(out, p)
		case !inRoot && anywhere && p != root && !slices.Contains(outside, p):
			outside = append(outside, p)
		}
	}
	for _, fl := range findFields(f.Decls, []string{"extends"}) {
		if ll, ok := fl.Value.(*ast.ListLit); ok {
			for _, e := range ll.Elts {
				if s, ok := e.(*ast.StructLit); ok {
					for _, p := range findFields(s.Elts, []string{"path"}) {
						add(p.Value)
					}
				}
			}
		}
	}
	for _, fl := range findFields(f.Decls, []string{"extensions", "sources", "*", "path"}) {
		add(fl.Value)
	}
	anywhere = true
	for _, fl := range findFields(f.Decls, []string{"extensions", "directories"}) {
		if ll, ok := fl.Value.(*ast.ListLit); ok {
			for _, e := range ll.Elts {
				add(e)
			}
		}
	}
	slices.Sort(out)
	slices.Sort(outside)
	return out, outside
}

// teamsFromWorkspace reports whether the team profiles in the lock were
// brought by the workspace: its profile declares extends and the user
// profile does not. Such layers are judged under the workspace's trust.
func teamsFromWorkspace(layers []*layer) bool {
	ws, user := false, false
	for _, l := range layers {
		has := len(findFields(l.file.Decls, []string{"extends"})) > 0
		switch l.scope {
		case schema.ScopeWorkspace:
			ws = ws || has
		case schema.ScopeUser:
			user = user || has
		}
	}
	return ws && !user
}

// gateLayers holds back the widening values of every untrusted layer and
// records them in t. It returns an error only for a broken schema.
func gateLayers(layers []*layer, t *schema.Trust) (sources map[string]bool, err error) {
	table, err := trustClasses()
	if err != nil {
		return nil, fmt.Errorf("trust classes of the schema (a bug in ollm): %w", err)
	}
	sources = map[string]bool{}
	for _, l := range layers {
		if l.scope != schema.ScopeWorkspace {
			continue
		}
		for _, f := range findFields(l.file.Decls, []string{"extensions", "sources", "*"}) {
			sources[labelName(f.Label)] = true
		}
		for _, f := range findFields(l.file.Decls, []string{"mcp", "servers", "*"}) {
			if n := labelName(f.Label); n != "" && !slices.Contains(t.HeldServers, n) {
				t.HeldServers = append(t.HeldServers, n)
			}
		}
		t.Held = append(t.Held, gateLayer(table, l)...)
	}
	return sources, nil
}

// gateExtensions takes out of r the workspace's own extensions and the
// store extensions pinned for sources the workspace (or a team profile it
// extends) declares, and returns a warning for each naming its manifest.
func gateExtensions(r *schema.Resolved, sources map[string]bool) []schema.Problem {
	kept := r.Extensions[:0:0]
	var probs []schema.Problem
	for _, x := range r.Extensions {
		if x.Scope == schema.ScopeWorkspace || (x.Scope == schema.ScopeStore && sources[x.Name]) {
			r.Trust.HeldExtensions = append(r.Trust.HeldExtensions, x.Name)
			probs = append(probs, schema.Problem{Severity: "warning", Extension: x.Name, File: x.File,
				Message: fmt.Sprintf("workspace not approved: extension %s held back", x.Name), Fix: "`ollm trust` reviews and approves the workspace"})
			continue
		}
		kept = append(kept, x)
	}
	r.Extensions = kept
	return probs
}

// heldProblems is one warning per value held back.
func heldProblems(ws string, t schema.Trust) []schema.Problem {
	var out []schema.Problem
	const fix = "`ollm trust` reviews and approves the workspace"
	if t.Unapprovable != "" && !t.Approved {
		out = append(out, schema.Problem{Severity: "warning", File: ws,
			Message: "the workspace cannot be approved: " + t.Unapprovable, Fix: "move the scripts, then run `ollm trust`"})
	}
	for _, h := range t.Held {
		out = append(out, schema.Problem{Severity: "warning", File: h.File, Pos: h.Pos,
			Message: fmt.Sprintf("workspace not approved: %s held back (%s)", h.Field, h.Reason), Fix: fix})
	}
	return out // held extensions: gateExtensions
}

// resolveLayerPaths makes relative extension directories, and the
// relative, path-like command and arguments of hooks and MCP servers,
// absolute against the directory of the layer that declared them, so a hook of the user profile never runs a script of the
// current workspace. Workspace layers keep theirs: they run in the
// workspace.
func resolveLayerPaths(r *schema.Resolved, layers []*layer, lists collected, ws string) {
	for i := range r.Profile.Hooks.Definitions {
		if i >= len(lists.dirs[1]) || lists.scopes[1][i] == schema.ScopeWorkspace {
			continue
		}
		h := &r.Profile.Hooks.Definitions[i]
		h.Command, h.Args = absPaths(lists.dirs[1][i], ws, h.Command, h.Args)
	}
	for i, d := range r.Profile.Extensions.Directories {
		if i < len(lists.dirs[2]) && lists.dirs[2][i] != "" && !filepath.IsAbs(d) && !strings.HasPrefix(d, "~/") {
			r.Profile.Extensions.Directories[i] = filepath.Join(lists.dirs[2][i], d)
		}
	}
	for _, l := range layers {
		if l.scope == schema.ScopeWorkspace || l.dir() == "" {
			continue
		}
		for _, f := range findFields(l.file.Decls, []string{"mcp", "servers", "*"}) {
			name := labelName(f.Label)
			s, ok := r.Profile.MCP.Servers[name]
			if !ok || r.ServerScopes[name] != l.scope {
				continue
			}
			s.Command, s.Args = absPaths(l.dir(), ws, s.Command, s.Args)
			if s.Cwd != "" && pathLike(s.Cwd) {
				s.Cwd = filepath.Join(l.dir(), s.Cwd)
			}
			r.Profile.MCP.Servers[name] = s
		}
	}
}

// absPaths resolves a relative command with a directory part, and each
// argument that is a relative path: one that starts with ./ or ../, names
// a script, or names a file that exists in the layer's directory or in the
// workspace (where it would otherwise be found).
func absPaths(dir, ws, command string, args []string) (string, []string) {
	if pathLike(command) && strings.Contains(command, "/") {
		command = filepath.Join(dir, command)
	}
	if len(args) == 0 {
		return command, args
	}
	out := slices.Clone(args)
	for i, a := range out {
		if pathLike(a) && (strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") || scriptExt[filepath.Ext(a)] ||
			exists(filepath.Join(dir, a)) || (ws != "" && exists(filepath.Join(ws, a)))) {
			out[i] = filepath.Join(dir, a)
		}
	}
	return command, out
}

var scriptExt = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".py": true, ".js": true, ".mjs": true, ".cjs": true,
	".ts": true, ".rb": true, ".pl": true, ".php": true, ".lua": true, ".ps1": true, ".jar": true}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// pathLike reports whether s could be a relative file path: not an
// option, a variable, a home path, a package name, a URL or a piece of
// shell.
func pathLike(s string) bool {
	if s == "" || s == "." || filepath.IsAbs(s) {
		return false
	}
	if strings.ContainsAny(s[:1], "-$~@%") || strings.Contains(s, "://") || strings.ContainsAny(s, " \t\n;|&<>()'\"`*?=") {
		return false
	}
	return true
}

// WorkspaceTrust reads the workspace's digest and approval without
// resolving the profile.
func WorkspaceTrust(opts Options) (schema.Trust, error) {
	in, err := readLayers(opts)
	if err != nil {
		return schema.Trust{}, err
	}
	return workspaceTrust(opts, in)
}
