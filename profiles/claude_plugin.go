package profiles

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/schema"
)

// A Claude Code plugin is a directory with .claude-plugin/plugin.json. It
// loads as an extension (format "claude"): its hooks (hooks/hooks.json or
// plugin.json's hooks) become claude-dialect hooks that run in the
// project directory with CLAUDE_PLUGIN_ROOT set, its commands
// (commands/*.md) are listed in the import report and loaded as Claude
// Code commands (/plugin:name, core/skills), its skills/ folder is read like any extension's, and its
// MCP servers (.mcp.json or plugin.json's mcpServers) start as
// <plugin>:<server>. What cannot be imported is listed with why in the
// extension's ImportReport (`ollm ext info`).

// Claude Code plugin files.
const (
	ClaudePluginFile      = ".claude-plugin/plugin.json"
	ClaudeMarketplaceFile = ".claude-plugin/marketplace.json"
)

// claudePluginRoot is the variable Claude Code plugins name their own
// directory by.
const claudePluginRoot = "${CLAUDE_PLUGIN_ROOT}"

// claudePluginData is what a plugin's CLAUDE_PLUGIN_DATA (Claude Code's
// persistent per-plugin state directory) is in ollm: the extension's
// .ollm/data/<name> in the workspace, the one place under .ollm/ its
// hooks and servers may write (sandbox.ExtensionData).
const claudePluginData = "${extensionDataPath}"

var namePattern = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// claudePluginJSON is the part of plugin.json ollm reads; every field may
// be a path, a list of paths or (hooks, mcpServers) an inline object.
type claudePluginJSON struct {
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Description string          `json:"description"`
	Commands    json.RawMessage `json:"commands"`
	Agents      json.RawMessage `json:"agents"`
	Skills      json.RawMessage `json:"skills"`
	Hooks       json.RawMessage `json:"hooks"`
	MCPServers  json.RawMessage `json:"mcpServers"`
	OutputStyle json.RawMessage `json:"outputStyles"`
	LSPServers  json.RawMessage `json:"lspServers"`
	// Marketplace: the plugin.json was made by ollm from a marketplace
	// entry (BuildMarketplacePlugin).
	Marketplace *MarketplaceMeta `json:"x-ollm-marketplace"`
}

// pluginImport collects a plugin's conversion.
type pluginImport struct {
	dir   string
	entry *MarketplaceMeta // the marketplace entry that defined it, if any
	m     schema.Manifest
	rep   *schema.ImportReport
	diags []Diagnostic
}

func (p *pluginImport) rel(file string) string {
	if r, err := filepath.Rel(p.dir, file); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return file
}

func (p *pluginImport) imported(what, as, pos string) {
	p.rep.Imported = append(p.rep.Imported, schema.ImportItem{What: what, As: as, Pos: p.relPos(pos)})
}

func (p *pluginImport) skipped(what, pos, why string) {
	p.rep.Skipped = append(p.rep.Skipped, schema.ImportItem{What: what, Pos: p.relPos(pos), Why: why})
}

// claudePlugin converts the Claude Code plugin in dir, whose plugin.json
// (at file) holds data. Diagnostics are what makes the plugin unusable (an
// invalid plugin.json, a bad name); everything else that cannot be
// imported is in the report.
func claudePlugin(dir, file string, data []byte) (schema.Manifest, *schema.ImportReport, []Diagnostic) {
	p := &pluginImport{dir: dir, rep: &schema.ImportReport{Format: "claude-plugin"}}
	doc, err := parseJSONDoc(file, data)
	if err != nil {
		return p.m, nil, []Diagnostic{{Pos: doc.errPos(err), Message: "plugin.json is not valid JSON: " + err.Error()}}
	}
	var pj claudePluginJSON
	if err := json.Unmarshal(data, &pj); err != nil {
		return p.m, nil, []Diagnostic{{Pos: file, Message: "plugin.json: " + err.Error()}}
	}
	if !namePattern.MatchString(pj.Name) {
		return p.m, nil, []Diagnostic{{Pos: doc.pos("name"), Path: "name",
			Message: fmt.Sprintf("plugin name %q must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$ (a plugin needs a name to load as an extension)", pj.Name)}}
	}
	p.m = schema.Manifest{Name: pj.Name, Version: pj.Version, Description: pj.Description}
	if p.m.Version == "" {
		p.m.Version = "0.0.0"
	}
	if p.m.Description == "" {
		p.m.Description = "Claude Code plugin " + pj.Name
	}
	if pj.Marketplace != nil {
		p.entry = pj.Marketplace
		p.fromEntry()
	}
	p.hooks(doc, pj.Hooks)
	p.commands(doc, pj.Commands)
	p.skills(doc, pj.Skills)
	p.servers(doc, pj.MCPServers)
	p.agents(doc, pj.Agents)
	if len(pj.OutputStyle) > 0 {
		p.skipped("output styles", doc.pos("outputStyles"), "ollm reads a plugin's output styles from its output-styles/ folder only; move them there")
	}
	if len(pj.LSPServers) > 0 {
		p.skipped("LSP servers", doc.pos("lspServers"), "ollm does not start language servers")
	}
	return p.m, p.rep, p.diags
}

// paths reads a plugin.json field that is a path or a list of paths,
// relative to the plugin and starting with ./ as Claude Code requires.
func (p *pluginImport) paths(doc jsonDoc, field string, raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var out []string
	for _, el := range elements(raw) {
		pos := doc.pos(field)
		if el.index >= 0 {
			pos = doc.pos(field, el.index)
		}
		if el.obj != nil && (field == "hooks" || field == "mcpServers") {
			continue // an inline object: the caller reads it
		}
		if el.path == "" {
			p.skipped(field, pos, "not a path or a list of paths")
			continue
		}
		s := el.path
		c := filepath.Clean(s)
		if filepath.IsAbs(s) || c == ".." || strings.HasPrefix(c, "../") {
			p.skipped(field+" "+s, pos, "the path leaves the plugin's directory")
			continue
		}
		out = append(out, filepath.Join(p.dir, c))
	}
	return out
}

// hooks reads hooks/hooks.json and plugin.json's hooks (paths or an
// inline {"hooks": {...}} object).
func (p *pluginImport) hooks(doc jsonDoc, raw json.RawMessage) {
	type source struct {
		doc  jsonDoc
		base []any
		data json.RawMessage
	}
	var srcs []source
	files := []string{}
	if def := filepath.Join(p.dir, "hooks", "hooks.json"); isFile(def) {
		files = append(files, def)
	}
	for _, el := range elements(raw) {
		if el.obj == nil {
			continue
		}
		base := []any{"hooks"}
		if el.index >= 0 {
			base = append(base, el.index)
		}
		srcs = append(srcs, source{doc, base, el.obj})
	}
	for _, f := range p.paths(doc, "hooks", raw) {
		if len(files) == 0 || files[0] != f {
			files = append(files, f)
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			p.skipped("hooks file "+p.rel(f), doc.pos("hooks"), "cannot read it: "+err.Error())
			continue
		}
		d, err := parseJSONDoc(f, data)
		if err != nil {
			p.diags = append(p.diags, Diagnostic{Pos: d.errPos(err), Message: "hooks file is not valid JSON: " + err.Error()})
			continue
		}
		srcs = append(srcs, source{d, nil, data})
	}
	n := map[string]int{}
	for _, s := range srcs {
		var wrapper struct {
			Hooks map[string]json.RawMessage `json:"hooks"`
		}
		base := s.base
		if err := json.Unmarshal(s.data, &wrapper); err != nil || wrapper.Hooks == nil {
			// an inline object may be the events map itself
			var events map[string]json.RawMessage
			if err := json.Unmarshal(s.data, &events); err != nil {
				p.skipped("hooks", s.doc.pos(base...), "not a hooks object")
				continue
			}
			wrapper.Hooks = events
		} else {
			base = append(append([]any{}, base...), "hooks")
		}
		conv := convertClaudeHooks(s.doc, base, wrapper.Hooks, "hook", map[string]string{"CLAUDE_PLUGIN_ROOT": "${extensionPath}", "CLAUDE_PLUGIN_DATA": claudePluginData})
		for _, sk := range conv.skipped {
			sk.Pos = p.relPos(sk.Pos)
			p.rep.Skipped = append(p.rep.Skipped, sk)
		}
		for _, h := range conv.hooks {
			ev := h.def.Event
			n[ev]++
			h.def.Name = fmt.Sprintf("%s.%d", ev, n[ev]) // unique across the plugin's hook files
			if p.m.Hooks == nil {
				p.m.Hooks = map[string][]schema.Hook{}
			}
			p.m.Hooks[ev] = append(p.m.Hooks[ev], h.def)
			what := "hook " + ev
			if h.def.Matcher != "" {
				what += fmt.Sprintf(" (matcher %q)", h.def.Matcher)
			}
			p.imported(what, fmt.Sprintf("%s hook %s", claudeEvents[ev], h.def.Name), p.relPos(h.pos))
		}
	}
}

// relPos shortens a position inside the plugin to a relative one.
func (p *pluginImport) relPos(pos string) string {
	if strings.HasPrefix(pos, p.dir+string(filepath.Separator)) {
		return pos[len(p.dir)+1:]
	}
	return pos
}

// commands reads commands/**/*.md (and plugin.json's commands paths):
// each becomes a skill named after the file.
func (p *pluginImport) commands(doc jsonDoc, raw json.RawMessage) {
	roots := []string{filepath.Join(p.dir, "commands")}
	if p.entry != nil && slices.Contains(p.entry.FromEntry, "commands") {
		roots = nil // a marketplace entry's commands replace the folder, as in Claude Code
	}
	roots = append(roots, p.paths(doc, "commands", raw)...)
	var files []string
	seenFile := map[string]bool{}
	for _, r := range roots {
		fi, err := os.Stat(r)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			if !seenFile[r] {
				seenFile[r] = true
				files = append(files, r)
			}
			continue
		}
		_ = filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".md") && !seenFile[path] {
				seenFile[path] = true
				files = append(files, path)
			}
			return nil
		})
	}
	sort.Strings(files)
	names := map[string]string{}
	for _, f := range files {
		rel := p.rel(f)
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		if !namePattern.MatchString(name) {
			p.skipped("command "+rel, rel, fmt.Sprintf("the name %q is not a valid skill name", name))
			continue
		}
		if prev, dup := names[name]; dup {
			p.skipped("command "+rel, rel, "another command has the same name: "+prev)
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			p.skipped("command "+rel, rel, "cannot read it")
			continue
		}
		_, body := claudeFrontMatter(string(data))
		names[name] = rel
		p.rep.Commands = append(p.rep.Commands, schema.ImportCommand{Name: name, File: rel})
		as := "command /" + p.m.Name + ":" + name
		if hasShellLine(body) {
			as += " (its !`...` lines run through the gate)"
		}
		p.imported("command "+name, as, rel)
	}
}

func hasShellLine(body string) bool {
	for _, l := range strings.Split(body, "\n") {
		if strings.Contains(l, "!`") || strings.TrimSpace(l) == "```!" {
			return true
		}
	}
	return false
}

func firstTextLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(l, "# "))
		if l != "" {
			if len(l) > 120 {
				l = l[:120]
			}
			return l
		}
	}
	return ""
}

// claudeFrontMatter splits "---\nkey: value\n---\nbody". Values are taken
// as plain text (quotes removed); lists and nested YAML are kept as text.
func claudeFrontMatter(s string) (map[string]string, string) {
	meta := map[string]string{}
	s = strings.TrimPrefix(s, "\ufeff")
	if !strings.HasPrefix(s, "---\n") && !strings.HasPrefix(s, "---\r\n") {
		return meta, s
	}
	rest := s[strings.Index(s, "\n")+1:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return meta, s
	}
	for _, l := range strings.Split(rest[:end], "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok || strings.HasPrefix(l, " ") {
			continue
		}
		v = strings.TrimSpace(v)
		v = strings.Trim(v, `"'`)
		meta[strings.TrimSpace(k)] = v
	}
	body := rest[end+4:]
	if i := strings.Index(body, "\n"); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	return meta, body
}

// skills: the skills/ folder is read by the extension manager like any
// extension's; other folders plugin.json names are not.
func (p *pluginImport) skills(doc jsonDoc, raw json.RawMessage) {
	dir := filepath.Join(p.dir, "skills")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		f := filepath.Join(dir, e.Name(), "SKILL.md")
		if !isFile(f) {
			continue
		}
		as := "skill (skills/ folder)"
		if from := p.entrySkill(e.Name()); from != "" {
			as = "skill (" + from + ", named by the skills field)"
		}
		p.imported("skill "+e.Name(), as, p.rel(f))
	}
	for _, d := range p.paths(doc, "skills", raw) {
		if d != dir {
			p.skipped("skills "+p.rel(d), doc.pos("skills"), "only the plugin's skills/ folder is read; move the skills there")
		}
	}
}

// servers reads .mcp.json and plugin.json's mcpServers (paths or an
// inline object of servers).
func (p *pluginImport) servers(doc jsonDoc, raw json.RawMessage) {
	type source struct {
		file string
		pos  string
		data []byte
	}
	var srcs []source
	if f := filepath.Join(p.dir, ".mcp.json"); isFile(f) {
		if data, err := os.ReadFile(f); err == nil {
			srcs = append(srcs, source{f, ".mcp.json", data})
		}
	}
	for _, el := range elements(raw) {
		if el.obj != nil {
			pos := doc.pos("mcpServers")
			if el.index >= 0 {
				pos = doc.pos("mcpServers", el.index)
			}
			srcs = append(srcs, source{doc.file, p.relPos(pos), el.obj})
		}
	}
	for _, f := range p.paths(doc, "mcpServers", raw) {
		if data, err := os.ReadFile(f); err == nil && f != filepath.Join(p.dir, ".mcp.json") {
			srcs = append(srcs, source{f, p.rel(f), data})
		}
	}
	for _, s := range srcs {
		data := s.data
		var probe map[string]json.RawMessage
		if json.Unmarshal(data, &probe) == nil {
			if _, wrapped := probe["mcpServers"]; !wrapped {
				data, _ = json.Marshal(map[string]any{"mcpServers": probe})
			}
		}
		servers, err := ParseMCPJSON(p.rel(s.file), data)
		if err != nil {
			p.skipped("MCP servers of "+p.rel(s.file), s.pos, err.Error())
			continue
		}
		names := make([]string, 0, len(servers))
		for n := range servers {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if !namePattern.MatchString(n) {
				p.skipped("MCP server "+n, s.pos, "the name is not a valid server name")
				continue
			}
			if p.m.MCPServers == nil {
				p.m.MCPServers = map[string]schema.MCPServer{}
			}
			p.m.MCPServers[n] = pluginServer(servers[n])
			p.imported("MCP server "+n, "server "+p.m.Name+":"+n, s.pos)
		}
	}
}

// pluginServer replaces ${CLAUDE_PLUGIN_ROOT} by ${extensionPath}, which
// the extension manager substitutes.
func pluginServer(s schema.MCPServer) schema.MCPServer {
	r := strings.NewReplacer(claudePluginRoot, "${extensionPath}", "$CLAUDE_PLUGIN_ROOT", "${extensionPath}")
	s.Command, s.Cwd, s.URL = r.Replace(s.Command), r.Replace(s.Cwd), r.Replace(s.URL)
	for i := range s.Args {
		s.Args[i] = r.Replace(s.Args[i])
	}
	for _, m := range []map[string]string{s.Env, s.Headers} {
		for k, v := range m {
			m[k] = r.Replace(v)
		}
	}
	if s.Transport == "stdio" {
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		if _, set := s.Env["CLAUDE_PLUGIN_ROOT"]; !set {
			s.Env["CLAUDE_PLUGIN_ROOT"] = "${extensionPath}" // as Claude Code gives its plugin servers
		}
		if _, set := s.Env["CLAUDE_PLUGIN_DATA"]; !set {
			s.Env["CLAUDE_PLUGIN_DATA"] = claudePluginData
		}
	}
	return s
}

// claudeDigest is what the resolution cache compares for a plugin: every
// file the conversion reads (plugin.json, hook files, .mcp.json and
// commands), so editing any of them resolves again.
func claudeDigest(dir string, pluginJSON []byte) string {
	h := sha256.New()
	h.Write(pluginJSON)
	add := func(path string) {
		if data, err := os.ReadFile(path); err == nil {
			fmt.Fprintf(h, "\x00%s\x00%d\x00", path, len(data))
			h.Write(data)
		}
	}
	var files []string
	for _, d := range []string{"hooks", "commands", "skills", "agents"} {
		_ = filepath.WalkDir(filepath.Join(dir, d), func(path string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".md")) {
				files = append(files, path)
			}
			return nil
		})
	}
	files = append(files, filepath.Join(dir, ".mcp.json"))
	var pj claudePluginJSON
	if json.Unmarshal(pluginJSON, &pj) == nil {
		for _, raw := range []json.RawMessage{pj.Hooks, pj.Commands, pj.MCPServers, pj.Agents} {
			var one string
			var many []string
			if json.Unmarshal(raw, &one) == nil {
				many = []string{one}
			} else {
				_ = json.Unmarshal(raw, &many)
			}
			for _, s := range many {
				files = append(files, filepath.Join(dir, filepath.Clean(s)))
			}
		}
	}
	sort.Strings(files)
	for _, f := range files {
		add(f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// MarketplaceError is a Claude Code plugin marketplace where a plugin was
// expected: it names the plugins and how to add each.
type MarketplaceError struct {
	File    string
	Plugins []MarketplacePlugin
}

// MarketplacePlugin is one plugin a marketplace lists: a folder of the
// marketplace's repository (Subdir), or another repository (Git, Ref and
// Subdir inside it) as its source says.
type MarketplacePlugin struct {
	Name   string
	Subdir string
	Git    string // "" for a folder of the marketplace
	Ref    string
	Source string // the source as written, for display
	// Entry: the entry defines the plugin (strict: false or component
	// fields), so it is added as {git: <marketplace>, plugin: Name}.
	Entry bool
	// Dropped: the component fields of an entry whose plugin is in
	// another repository; they are not applied (ext add says so).
	Dropped []string
	// Unsupported says why ollm cannot add it ("" when it can).
	Unsupported string
}

func (e *MarketplaceError) Error() string {
	var b strings.Builder
	b.WriteString("this is a Claude Code plugin marketplace (" + ClaudeMarketplaceFile + "), not a plugin; add one of its plugins with --plugin NAME (or --subdir for a folder):")
	for _, p := range e.Plugins {
		switch {
		case p.Unsupported != "":
			fmt.Fprintf(&b, "\n  %s: cannot be added: %s", p.Name, p.Unsupported)
		case p.Entry:
			fmt.Fprintf(&b, "\n  %s: --plugin %s (defined by its entry in marketplace.json)", p.Name, p.Name)
		case p.Git == "":
			fmt.Fprintf(&b, "\n  %s: --subdir %s", p.Name, p.Subdir)
		default:
			fmt.Fprintf(&b, "\n  %s: --plugin %s (from %s)", p.Name, p.Name, p.Git)
		}
	}
	return b.String()
}

func (e *MarketplaceError) Unwrap() error { return ErrNoManifest }

// Plugin finds a plugin of the marketplace by name.
func (e *MarketplaceError) Plugin(name string) (MarketplacePlugin, error) {
	var names []string
	for _, p := range e.Plugins {
		if p.Name == name {
			if p.Unsupported != "" {
				return p, fmt.Errorf("plugin %s of %s cannot be added: %s", name, e.File, p.Unsupported)
			}
			return p, nil
		}
		names = append(names, p.Name)
	}
	return MarketplacePlugin{}, fmt.Errorf("%s lists no plugin %q; it lists: %s", e.File, name, strings.Join(names, ", "))
}

// marketplace reads dir's marketplace.json, if any.
func marketplace(dir string) *MarketplaceError {
	file := filepath.Join(dir, ClaudeMarketplaceFile)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var mk struct {
		Metadata struct {
			PluginRoot string `json:"pluginRoot"`
		} `json:"metadata"`
		Plugins []map[string]json.RawMessage `json:"plugins"`
	}
	if json.Unmarshal(data, &mk) != nil {
		return nil
	}
	e := &MarketplaceError{File: file}
	for _, pl := range mk.Plugins {
		var name string
		_ = json.Unmarshal(pl["name"], &name)
		mp := marketplaceSource(name, pl["source"], mk.Metadata.PluginRoot)
		mp.Entry = entryDefines(pl)
		if mp.Entry && mp.Git != "" && mp.Unsupported == "" {
			if strict := entryStrict(pl); !strict {
				mp.Unsupported = "its entry defines the plugin (strict: false) but the plugin's files are in another repository (" + mp.Git + "); ollm locks one repository per extension"
			}
			// strict: true: the plugin's own plugin.json is added; the
			// entry's fields are named as not applied.
			mp.Entry, mp.Dropped = false, entryFields(pl)
		}
		e.Plugins = append(e.Plugins, mp)
	}
	return e
}

// entryDefines: the entry is strict: false or names components.
func entryDefines(fields map[string]json.RawMessage) bool {
	return !entryStrict(fields) || len(entryFields(fields)) > 0
}

// entryStrict is the entry's strict (default true).
func entryStrict(fields map[string]json.RawMessage) bool {
	var strict bool
	return json.Unmarshal(fields["strict"], &strict) != nil || strict
}

// entryFields are the component fields the entry names.
func entryFields(fields map[string]json.RawMessage) []string {
	var out []string
	for _, f := range pluginComponents {
		if raw, ok := fields[f]; ok && string(raw) != "null" {
			out = append(out, f)
		}
	}
	return out
}

// marketplaceSource reads a marketplace entry's source, as Claude Code's
// plugin marketplaces document it: a relative path (a folder, under
// metadata.pluginRoot), or {"source": "github", repo, ref, sha},
// {"source": "url", url, ref, sha} or {"source": "git-subdir", url,
// path, ref, sha}; sha pins a commit and wins over ref.
func marketplaceSource(name string, raw json.RawMessage, root string) MarketplacePlugin {
	mp := MarketplacePlugin{Name: name, Source: string(raw)}
	var path string
	if json.Unmarshal(raw, &path) == nil {
		if root != "" && !strings.HasPrefix(path, "./") {
			path = filepath.Join(root, path)
		}
		mp.Subdir = filepath.ToSlash(filepath.Clean(path))
		if c := mp.Subdir; c == ".." || strings.HasPrefix(c, "../") || filepath.IsAbs(path) {
			mp.Subdir, mp.Unsupported = "", "its folder "+path+" is outside the marketplace's repository"
		}
		return mp
	}
	var src struct {
		Source string `json:"source"`
		Repo   string `json:"repo"`
		URL    string `json:"url"`
		Path   string `json:"path"`
		Ref    string `json:"ref"`
		SHA    string `json:"sha"`
	}
	if json.Unmarshal(raw, &src) != nil {
		mp.Unsupported = "its source is neither a path nor an object"
		return mp
	}
	mp.Ref = src.Ref
	if src.SHA != "" {
		mp.Ref = src.SHA
	}
	switch src.Source {
	case "github":
		mp.Git = "https://github.com/" + strings.TrimSuffix(src.Repo, ".git") + ".git"
	case "url":
		mp.Git = src.URL
	case "git-subdir":
		mp.Git, mp.Subdir = src.URL, strings.Trim(filepath.ToSlash(filepath.Clean(src.Path)), "/")
	default:
		mp.Unsupported = fmt.Sprintf("source %q is not a git repository (ollm adds git sources: github, url, git-subdir, or a folder of the marketplace)", src.Source)
		return mp
	}
	if (src.Source == "github" && src.Repo == "") || (src.Source != "github" && src.URL == "") {
		mp.Git, mp.Unsupported = "", "its source names no repository"
	}
	return mp
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// validateClaudePlugin is ValidateManifest for a Claude Code plugin: a
// tree without one is ErrNoManifest, or a *MarketplaceError naming the
// plugins of a marketplace.
func validateClaudePlugin(dir string) (string, schema.Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ClaudePluginFile))
	if errors.Is(err, fs.ErrNotExist) {
		if mk := marketplace(dir); mk != nil {
			return "", schema.Manifest{}, mk
		}
		return "", schema.Manifest{}, ErrNoManifest
	}
	if err != nil {
		return ClaudePluginFile, schema.Manifest{}, err
	}
	m, _, diags := claudePlugin(dir, filepath.Join(dir, ClaudePluginFile), data)
	if len(diags) > 0 {
		for i := range diags {
			diags[i].Pos = strings.TrimPrefix(diags[i].Pos, dir+string(filepath.Separator))
		}
		return ClaudePluginFile, m, &ManifestError{File: ClaudePluginFile, Diags: diags}
	}
	return ClaudePluginFile, m, nil
}

// importProblems are the warnings of an imported extension: the hooks it
// could not bring (an event without an equivalent, a hook type ollm does
// not run), one per skipped item. The rest is in `ollm ext info`.
func importProblems(ext schema.Extension) []schema.Problem {
	if ext.Import == nil {
		return nil
	}
	var out []schema.Problem
	for _, s := range ext.Import.Skipped {
		if !strings.HasPrefix(s.What, "hook") && !strings.HasPrefix(s.What, "agent") {
			continue
		}
		pos := s.Pos
		if pos != "" && !filepath.IsAbs(pos) {
			pos = filepath.Join(ext.Dir, pos)
		}
		kind, what := "Claude Code plugin", "plugin"
		if ext.Import.Format == "gemini-extension" {
			kind, what = "Gemini CLI extension", "extension"
		}
		out = append(out, schema.Problem{Severity: "warning", Extension: ext.Name, File: ext.File, Pos: pos,
			Message: fmt.Sprintf("%s %s: %s skipped: %s", kind, ext.Name, s.What, s.Why),
			Fix:     fmt.Sprintf("nothing to do: the rest of the %s loads; `ollm ext info %s` lists what was imported", what, ext.Name)})
	}
	return out
}
