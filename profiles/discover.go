package profiles

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ollm/ollm/schema"
)

// root is one place extensions are discovered. A root either holds one
// extension per subdirectory (parent) or is itself an extension.
type root struct {
	scope  schema.Scope
	dir    string
	single bool   // dir is the extension itself (--ext, locked store entries)
	name   string // for locked entries: the name the lock gives it
	hash   string // for locked entries: the pinned hash
	gemini bool   // ~/.gemini/extensions: links followed, enablement honoured (gemini_user.go)
	cwd    string // for gemini: where Gemini CLI's enablement is judged
}

// candidate is a manifest file found in a root.
type candidate struct {
	root   root
	dir    string
	file   string
	format string
	data   []byte
	digest string
}

// discoverRoots lists the roots in precedence order, lowest first: the
// user's Gemini CLI extensions, the user directory, extensions.directories, locked store entries, the
// workspace directory, then --ext paths. A later root's extension wins
// over an earlier one of the same name.
func discoverRoots(opts Options, p schema.Profile, dirScopes []schema.Scope) []root {
	var rs []root
	if g, ok := geminiUserRoot(opts); ok {
		rs = append(rs, g)
	}
	rs = append(rs, root{scope: schema.ScopeUser, dir: opts.Home.Extensions()})
	for i, d := range p.Extensions.Directories {
		scope := schema.ScopeDirectory
		base := opts.Home.Dir
		if i < len(dirScopes) && dirScopes[i] == schema.ScopeWorkspace {
			scope, base = schema.ScopeWorkspace, opts.Workspace.Root
		}
		rs = append(rs, root{scope: scope, dir: expandDir(d, base)})
	}
	for _, l := range opts.Locked {
		rs = append(rs, root{scope: schema.ScopeStore, dir: l.Dir, single: true, name: l.Name, hash: l.Hash})
	}
	if opts.Workspace.Root != "" {
		rs = append(rs, root{scope: schema.ScopeWorkspace, dir: opts.Workspace.Extensions()})
	}
	for _, e := range opts.Ext {
		rs = append(rs, root{scope: schema.ScopeFlag, dir: absOr(e), single: true})
	}
	return rs
}

func expandDir(d, base string) string {
	if strings.HasPrefix(d, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, d[2:])
		}
	}
	if filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	return filepath.Join(base, d)
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// scan reads the manifest files of every root. Problems are reported for
// unreadable directories and extension directories without a manifest.
func scan(roots []root) ([]candidate, []schema.Problem) {
	var out []candidate
	var probs []schema.Problem
	for _, r := range roots {
		dirs := []string{r.dir}
		if !r.single {
			entries, err := os.ReadDir(r.dir)
			if err != nil {
				if !os.IsNotExist(err) {
					probs = append(probs, schema.Problem{Severity: "error", File: r.dir, Message: fmt.Sprintf("cannot read extension directory: %v", err), Fix: "check its permissions"})
				}
				continue
			}
			dirs = dirs[:0]
			for _, e := range entries {
				if e.IsDir() || e.Type()&os.ModeSymlink != 0 {
					d := filepath.Join(r.dir, e.Name())
					if src, ok := geminiLinked(d); ok && r.gemini {
						d = src
					}
					dirs = append(dirs, d)
				}
			}
			sort.Strings(dirs)
		}
		for _, d := range dirs {
			c, prob := readCandidate(r, d)
			if prob != nil {
				probs = append(probs, *prob)
				continue
			}
			if c != nil && !(r.gemini && geminiDisabled(r, c.data)) {
				out = append(out, *c)
			}
		}
	}
	return out, probs
}

func readCandidate(r root, dir string) (*candidate, *schema.Problem) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if r.single {
			return nil, &schema.Problem{Severity: "error", File: dir, Extension: r.name, Message: "extension directory does not exist", Fix: "check the path, or run `ollm profile apply` to fetch locked extensions"}
		}
		return nil, nil // a dangling symlink in a parent root
	}
	for _, f := range []struct{ name, format string }{{ManifestFile, "ollm"}, {GeminiManifestFile, "gemini"}, {ClaudePluginFile, "claude"}} {
		file := filepath.Join(dir, f.name)
		data, err := os.ReadFile(file)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, &schema.Problem{Severity: "error", File: file, Extension: filepath.Base(dir), Message: fmt.Sprintf("cannot read manifest: %v", err), Fix: "check the file's permissions"}
		}
		sum := sha256.Sum256(data)
		digest := hex.EncodeToString(sum[:])
		if f.format == "claude" {
			digest = claudeDigest(dir, data) // the plugin's other files count too
		}
		if f.format == "gemini" {
			digest = geminiDigest(dir, data) // its hooks and policies count too
		}
		return &candidate{root: r, dir: dir, file: file, format: f.format, data: data, digest: digest}, nil
	}
	if data := defaultPluginJSON(dir); data != nil {
		// A Claude Code plugin without plugin.json (optional there): named
		// after its folder, as Claude Code names it.
		return &candidate{root: r, dir: dir, file: filepath.Join(dir, filepath.FromSlash(ClaudePluginFile)), format: "claude",
			data: data, digest: claudeDigest(dir, data)}, nil
	}
	return nil, &schema.Problem{Severity: "warning", File: dir, Extension: filepath.Base(dir),
		Message: "no manifest.json, gemini-extension.json or .claude-plugin/plugin.json; not an extension", Fix: "add a manifest.json (see docs/extensions.md) or move the directory out of " + filepath.Dir(dir)}
}

// loadExtensions validates every candidate and applies precedence. A
// broken manifest is skipped with a problem naming its file; the others
// load.
func (c *compiler) loadExtensions(cands []candidate) ([]schema.Extension, []schema.Problem) {
	var probs []schema.Problem
	byName := map[string]int{}
	var exts []schema.Extension
	for _, cd := range cands {
		var (
			m     schema.Manifest
			diags []Diagnostic
			rep   *schema.ImportReport
		)
		if cd.format == "claude" {
			m, rep, diags = claudePlugin(cd.dir, cd.file, cd.data)
		} else {
			m, diags = c.manifest(cd.file, cd.data, cd.format)
			if cd.format == "gemini" && len(diags) == 0 {
				rep, diags = geminiExtHooks(cd.dir, &m)
			}
		}
		if len(diags) > 0 {
			probs = append(probs, manifestProblems(cd, diags)...)
			continue
		}
		if cd.root.name != "" && cd.root.name != m.Name {
			probs = append(probs, schema.Problem{Severity: "error", Extension: cd.root.name, File: cd.file,
				Message: fmt.Sprintf("the profile names this extension %q but its manifest says %q", cd.root.name, m.Name),
				Fix:     fmt.Sprintf("rename the source in ollm.cue to %q, then run `ollm profile apply`", m.Name)})
			continue
		}
		ext := schema.Extension{Name: m.Name, Dir: cd.dir, Scope: cd.root.scope, Format: cd.format, File: cd.file, Hash: cd.root.hash, Manifest: m, Import: rep}
		probs = append(probs, importProblems(ext)...)
		i, dup := byName[m.Name]
		if !dup {
			byName[m.Name] = len(exts)
			exts = append(exts, ext)
			continue
		}
		prev := exts[i]
		if prev.Scope == ext.Scope && !samePrecedence(prev, ext) {
			probs = append(probs, schema.Problem{Severity: "error", Extension: m.Name, File: cd.file,
				Message: fmt.Sprintf("duplicate extension name %q: also declared by %s", m.Name, prev.File),
				Fix:     "rename one of them in its manifest.json; this copy is skipped"})
			continue
		}
		ext.Shadows = append(append(ext.Shadows, prev.Shadows...), prev.Dir)
		probs = append(probs, schema.Problem{Severity: "warning", Extension: m.Name, File: prev.File,
			Message: fmt.Sprintf("shadowed by the %s copy at %s", ext.Scope, ext.Dir)})
		exts[i] = ext
	}
	return exts, probs
}

// samePrecedence: two copies from the same kind of root are duplicates
// unless they come from different roots of that kind (two
// extensions.directories entries, two --ext paths), where the later wins.
func samePrecedence(a, b schema.Extension) bool {
	return rootOf(a) != rootOf(b) && (a.Scope == schema.ScopeDirectory || a.Scope == schema.ScopeFlag || a.Scope == schema.ScopeStore ||
		a.Scope == schema.ScopeUser && (isGeminiUserRoot(rootOf(a)) || isGeminiUserRoot(rootOf(b))))
}

// rootOf is the root an extension was found in: its folder's parent, or
// for a store entry (<store>/<hash>/<name>) the store.
func rootOf(e schema.Extension) string {
	if e.Scope == schema.ScopeStore {
		return filepath.Dir(filepath.Dir(e.Dir))
	}
	return filepath.Dir(e.Dir)
}

func manifestProblems(cd candidate, diags []Diagnostic) []schema.Problem {
	name := cd.root.name
	if name == "" {
		name = filepath.Base(cd.dir)
	}
	var out []schema.Problem
	for _, d := range diags {
		pos := d.Pos
		if pos == "" || isSchemaFile(pos) {
			pos = cd.file
		}
		out = append(out, schema.Problem{Severity: "error", Extension: name, File: cd.file, Pos: pos,
			Message: "invalid manifest, extension skipped: " + d.Message,
			Fix:     fmt.Sprintf("fix %s, then run `ollm profile validate`", cd.file)})
	}
	return out
}

// ClaudePluginParts are the default locations of a Claude Code plugin's
// components. Claude Code loads a folder holding any of them as a plugin
// even without .claude-plugin/plugin.json, named after the folder.
var ClaudePluginParts = []string{"commands", "agents", "skills", "hooks/hooks.json", ".mcp.json"}

// defaultPluginJSON is the plugin.json of a folder that is a Claude Code
// plugin without one (any of ClaudePluginParts at its top, no marketplace
// file): {"name": <folder>}; nil for any other folder.
func defaultPluginJSON(dir string) []byte {
	if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(ClaudeMarketplaceFile))); err == nil {
		return nil
	}
	for _, p := range ClaudePluginParts {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
			data, _ := json.Marshal(map[string]string{"name": filepath.Base(dir)})
			return data
		}
	}
	return nil
}
