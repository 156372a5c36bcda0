package profiles

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// Options says what to load.
type Options struct {
	Home      store.Home
	Workspace store.Workspace
	Ext       []string    // --ext PATH: extensions for this run only
	Locked    []LockedDir // extensions pinned by the lock, in the store
	Teams     []TeamFile  // team profiles (extends) pinned by the lock, in the store
	Model     string      // --model: replaces model.name for this run
	NoCache   bool        // always evaluate CUE
	// Ungated resolves as if the workspace were approved. Only for what
	// runs nothing: the resolver (fetching and pinning) and `ollm trust`
	// showing what it would approve. Everything else gets the gated view.
	Ungated bool
	// Unapproved resolves as if the workspace were not approved (unless
	// the user profile trusts every workspace): the gated view a
	// generation keeps for when its workspace is not approved.
	Unapproved bool
}

// LockedDir is a locked extension already present in the store.
type LockedDir struct {
	Name string
	Dir  string
	Hash string
}

// TeamFile is a team profile fetched into the store. It is unified as a
// layer between the builtin and the user profile, so its concrete values
// and its rules cannot be replaced by a lower layer.
type TeamFile struct {
	Name string
	File string // the .cue file in the store
	Hash string
}

// cacheVersion changes whenever the resolution logic changes, so an old
// cache entry is never read by a new binary.
const cacheVersion = "ollm-resolved-5"

// Load resolves the profile. A *Error means the profile layers are invalid
// (exit status 2); problems with single extensions are in
// Resolved.Problems.
func Load(opts Options) (*schema.Resolved, error) {
	in, err := readLayers(opts)
	if err != nil {
		return nil, err
	}
	trust, err := workspaceTrust(opts, in)
	if err != nil {
		return nil, err
	}
	trust.Gated = !trust.Approved && !opts.Ungated && trust.Digest != ""
	key := in.key(opts, trust)
	if !opts.NoCache {
		if r, ok := readCache(opts, key); ok {
			return r, nil
		}
	}
	r, cands, err := resolve(opts, in, trust)
	if err != nil {
		return nil, err
	}
	r.Digest = digestAll(key, cands)
	if !opts.NoCache {
		writeCache(opts.Home, key, r, cands)
	}
	return r, nil
}

// layerInput is a profile file's bytes.
type layerInput struct {
	scope schema.Scope
	path  string
	data  []byte
}

type inputs struct {
	layers []layerInput
	mcp    []byte // workspace .mcp.json, nil when absent
	claude []claudeFile
	gemini []geminiFile // Gemini CLI settings.json files (mcpServers)
}

func readLayers(opts Options) (*inputs, error) {
	in := &inputs{}
	type src struct {
		scope    schema.Scope
		path     string
		required bool
	}
	var srcs []src
	for _, t := range opts.Teams {
		srcs = append(srcs, src{schema.ScopeStore, t.File, true})
	}
	srcs = append(srcs, src{schema.ScopeUser, opts.Home.Profile(), false}, src{schema.ScopeWorkspace, workspaceProfile(opts), false})
	for _, l := range srcs {
		if l.path == "" {
			continue
		}
		data, err := os.ReadFile(l.path)
		if os.IsNotExist(err) && !l.required {
			continue
		}
		if err != nil {
			return nil, &Error{Diags: []Diagnostic{{Pos: l.path, Message: fmt.Sprintf("cannot read profile: %v", err)}}, Fix: "check the file's permissions"}
		}
		in.layers = append(in.layers, layerInput{l.scope, l.path, data})
	}
	if opts.Workspace.Root != "" {
		if data, err := os.ReadFile(opts.Workspace.MCPJSON()); err == nil {
			in.mcp = data
		}
	}
	in.claude = readClaudeSettings(opts)
	in.gemini = readGeminiSettings(opts)
	return in, nil
}

func workspaceProfile(opts Options) string {
	if opts.Workspace.Root == "" {
		return ""
	}
	return opts.Workspace.Profile()
}

// key digests everything but the extension manifests.
func (in *inputs) key(opts Options, t schema.Trust) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%t\x00%t\x00", cacheVersion, opts.Home.Dir, opts.Workspace.Root, opts.Model, t.Digest, t.Approved, t.Gated)
	for _, name := range schemaAndBuiltinNames() {
		fmt.Fprintf(h, "%s\x00", name)
	}
	for _, l := range in.layers {
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00", l.scope, l.path, len(l.data))
		h.Write(l.data)
	}
	fmt.Fprintf(h, "mcp\x00%d\x00", len(in.mcp))
	h.Write(in.mcp)
	claudeKey(h, in.claude)
	geminiKey(h, in.gemini)
	for _, e := range opts.Ext {
		fmt.Fprintf(h, "ext\x00%s\x00", absOr(e))
	}
	for _, l := range opts.Locked {
		fmt.Fprintf(h, "locked\x00%s\x00%s\x00%s\x00", l.Name, l.Dir, l.Hash)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// resolve evaluates CUE: the profile layers as one instance, then each
// discovered manifest.
func resolve(opts Options, in *inputs, trust schema.Trust) (*schema.Resolved, []candidate, error) {
	c, err := compilers.get()
	if err != nil {
		return nil, nil, err
	}
	defer compilers.put(c)
	b, err := builtinLayer()
	if err != nil {
		return nil, nil, err
	}
	layers := []*layer{b}
	r := &schema.Resolved{Version: schema.Version, Workspace: opts.Workspace.Root, Trust: trust}
	r.Layers = append(r.Layers, schema.Layer{Scope: schema.ScopeBuiltin, File: b.path, Digest: sha(b.data)})
	var diags []Diagnostic
	for _, li := range in.layers {
		l, err := parseLayer(li.scope, li.path, li.data)
		if err != nil {
			diags = append(diags, diagnostics(err, nil)...)
			continue
		}
		layers = append(layers, l)
		r.Layers = append(r.Layers, schema.Layer{Scope: li.scope, File: li.path, Digest: sha(li.data)})
	}
	if len(diags) > 0 {
		return nil, nil, &Error{Diags: diags, Fix: fixProfile}
	}
	if teamsFromWorkspace(layers) {
		for i, l := range layers {
			if l.scope == schema.ScopeStore {
				l.scope = schema.ScopeWorkspace
				r.Layers[i].Scope = schema.ScopeWorkspace
			}
		}
	}
	r.Problems = append(r.Problems, dropWorkspaceTrust(layers)...)
	r.Problems = append(r.Problems, dropWorkspaceClaudeUser(layers)...)
	var wsSources map[string]bool
	if trust.Gated {
		if wsSources, err = gateLayers(layers, &r.Trust); err != nil {
			return nil, nil, err
		}
	}
	composeDefaults(layers)
	r.ServerScopes = serverScopes(layers)
	r.ModeScope = firstSetter(layers, "policy", "mode")
	r.DefaultActionScope = firstSetter(layers, "policy", "defaultAction")
	lists := extractLists(layers)
	v, err := c.unifyProfile(layers, listsFile(lists))
	if err != nil {
		return nil, nil, err
	}
	data, err := v.MarshalJSON()
	if err == nil {
		err = json.Unmarshal(data, &r.Profile)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("decode resolved profile (a bug in ollm): %w", err)
	}
	r.RuleScopes, r.HookScopes, r.DirectoryScopes = lists.scopes[0], lists.scopes[1], lists.scopes[2]
	r.TrustedSandbox = trustedSandbox(c, layers, lists)
	if opts.Model != "" {
		r.Profile.Model.Name = opts.Model
	}
	if trust.Gated {
		if names := mcpJSONNames(opts, in.mcp); len(names) > 0 {
			r.Trust.HeldServers = append(r.Trust.HeldServers, names...)
			r.Problems = append(r.Problems, schema.Problem{Severity: "warning", File: opts.Workspace.MCPJSON(),
				Message: fmt.Sprintf("workspace not approved: .mcp.json servers held back: %s", strings.Join(names, ", ")),
				Fix:     "review them with `ollm trust` and approve the workspace there"})
		}
	} else {
		r.Problems = append(r.Problems, mergeMCPJSON(opts, in.mcp, r)...)
	}
	r.Problems = append(r.Problems, mergeGeminiSettings(in.gemini, r, trust.Gated)...)
	resolveLayerPaths(r, layers, lists, opts.Workspace.Root)
	r.Problems = append(r.Problems, mergeClaudeSettings(in.claude, r, trust.Gated)...)
	r.Problems = append(r.Problems, mergeClaudePermissions(in.claude, r, trust.Gated, opts.Workspace.Root)...)
	if r.Profile.Extensions.Enabled {
		cands, probs := scan(discoverRoots(opts, r.Profile, r.DirectoryScopes))
		r.Problems = append(r.Problems, probs...)
		exts, probs := c.loadExtensions(cands)
		r.Extensions = exts
		r.Problems = append(r.Problems, probs...)
		var held []schema.Problem
		if trust.Gated {
			held = gateExtensions(r, wsSources)
		}
		r.Problems = append(r.Problems, mergeGeminiPolicies(r)...)
		r.Problems = append(append(r.Problems, heldProblems(opts.Workspace.Root, r.Trust)...), held...)
		return r, cands, nil
	}
	r.Problems = append(r.Problems, heldProblems(opts.Workspace.Root, r.Trust)...)
	return r, nil, nil
}

// mcpJSONNames are the server names of a workspace .mcp.json, sorted.
func mcpJSONNames(opts Options, data []byte) []string {
	if data == nil {
		return nil
	}
	servers, err := ParseMCPJSON(opts.Workspace.MCPJSON(), data)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// dropWorkspaceTrust removes hooks.trustWorkspace from the workspace layer:
// a workspace cannot trust itself.
func dropWorkspaceTrust(layers []*layer) []schema.Problem {
	return dropWorkspaceField(layers, []string{"hooks", "trustWorkspace"},
		"hooks.trustWorkspace is ignored in a workspace profile: a workspace cannot trust itself",
		"set it in your user profile ($OLLM_HOME/profile.cue), or approve this workspace with `ollm trust`")
}

// dropWorkspaceField removes the field at path from workspace layers, a
// warning for each: a field only the user may set.
func dropWorkspaceField(layers []*layer, path []string, message, fix string) []schema.Problem {
	var out []schema.Problem
	for _, l := range layers {
		if l.scope != schema.ScopeWorkspace {
			continue
		}
		for _, pos := range dropField(&l.file.Decls, path) {
			out = append(out, schema.Problem{Severity: "warning", File: l.path, Pos: pos.String(), Message: message, Fix: fix})
		}
	}
	return out
}

// serverScopes records which layer declared each profile MCP server.
func serverScopes(layers []*layer) map[string]schema.Scope {
	out := map[string]schema.Scope{}
	for _, l := range layers {
		for _, f := range findFields(l.file.Decls, []string{"mcp", "servers", "*"}) {
			name := labelName(f.Label)
			if _, seen := out[name]; !seen || l.scope == schema.ScopeWorkspace {
				out[name] = l.scope
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// firstSetter is the scope of the lowest layer that sets path.
func firstSetter(layers []*layer, path ...string) schema.Scope {
	for _, l := range layers {
		if len(findFields(l.file.Decls, path)) > 0 {
			return l.scope
		}
	}
	return ""
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func schemaAndBuiltinNames() []string {
	// The embedded files are part of the binary; hashing their contents
	// keeps the cache honest across builds with a changed schema.
	var out []string
	for _, f := range schemaFilesData() {
		out = append(out, sha(f))
	}
	return out
}

// digestAll is the resolved profile's digest: the layer key plus every
// manifest read.
func digestAll(key string, cands []candidate) string {
	h := sha256.New()
	h.Write([]byte(key))
	for _, c := range cands {
		fmt.Fprintf(h, "\x00%s\x00%s", c.file, c.digest)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
