package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ollm/ollm/schema"
)

// A Claude Code marketplace entry may define its plugin: with "strict":
// false the entry is the plugin's whole definition (its folder needs no
// plugin.json), and with the default strict: true its component fields
// supplement the plugin's own plugin.json. ollm adds such a plugin as the
// source {git: <marketplace>, plugin: <entry>}: the resolver exports the
// entry's folder and BuildMarketplacePlugin writes the plugin.json the
// entry amounts to into the exported tree, before it is hashed. So the
// lock's hash covers the entry, a changed entry changes the hash, and the
// loader reads the plugin as any other, from its store folder.

// pluginComponents are the fields of a plugin entry (and of plugin.json)
// that say what a plugin brings, in the order they are reported.
var pluginComponents = []string{"commands", "agents", "skills", "hooks", "mcpServers", "lspServers", "outputStyles"}

// MarketplaceMeta is what the synthesized plugin.json records of the entry
// it was made from, under "x-ollm-marketplace"; `ollm ext info` shows it.
type MarketplaceMeta struct {
	Marketplace string `json:"marketplace,omitempty"`
	File        string `json:"file"`  // marketplace.json, relative to the repository
	Entry       string `json:"entry"` // the entry's name
	Strict      bool   `json:"strict"`
	Folder      string `json:"folder"` // the plugin's folder in the repository
	PluginJSON  bool   `json:"pluginJson"`
	// FromEntry: the component fields the entry gave. (No positions:
	// an entry that moves in marketplace.json keeps its plugin's hash.)
	// positions in marketplace.json.
	FromEntry []string `json:"fromEntry,omitempty"`
	// Skills: the skills/ folder as the skills field laid it out.
	Skills  []MarketplaceSkill `json:"skills,omitempty"`
	Skipped []skippedJSON      `json:"skipped,omitempty"`
}

// MarketplaceSkill is a skill folder the skills field named, and where
// the tree has it now.
type MarketplaceSkill struct {
	Name string `json:"name"`
	From string `json:"from"` // its folder in the plugin
}

type skippedJSON struct {
	What string `json:"what"`
	Pos  string `json:"pos,omitempty"`
	Why  string `json:"why"`
}

// MarketplaceEntry is one plugin entry of a marketplace.json.
type MarketplaceEntry struct {
	Marketplace string // the marketplace's name
	File        string // marketplace.json as positions name it
	Name        string
	Pos         string // file:line:col of the entry
	Strict      bool
	// Plugin is where the entry's plugin lives: Subdir (a folder of the
	// marketplace's repository, "." for its top) or another repository.
	Plugin MarketplacePlugin
	fields map[string]json.RawMessage // component fields, as written
	meta   map[string]json.RawMessage // version and description, if given
	pos    map[string]string          // their positions
}

// Defines reports whether the entry says more about its plugin than where
// it is: strict: false, or component fields. Such a plugin is added as
// {git, plugin} so that the entry is part of what is locked.
func (e MarketplaceEntry) Defines() bool { return !e.Strict || len(e.fields) > 0 }

// ReadMarketplaceEntry reads the entry name of the marketplace.json in
// dir (the marketplace's directory). Every path the entry names must stay
// inside the plugin's folder; an entry that breaks that, or a
// marketplace.json that is not valid JSON, is a *ManifestError positioned
// in marketplace.json (relative to dir).
func ReadMarketplaceEntry(dir, name string) (MarketplaceEntry, error) {
	file := ClaudeMarketplaceFile
	e := MarketplaceEntry{File: file, Name: name, Strict: true}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
	if errors.Is(err, fs.ErrNotExist) {
		return e, fmt.Errorf("%w: no %s", ErrNoManifest, file)
	}
	if err != nil {
		return e, err
	}
	doc, err := parseJSONDoc(file, data)
	if err != nil {
		return e, &ManifestError{File: file, Diags: []Diagnostic{{Pos: doc.errPos(err), Message: "marketplace.json is not valid JSON: " + err.Error()}}}
	}
	var mk struct {
		Name     string `json:"name"`
		Metadata struct {
			PluginRoot string `json:"pluginRoot"`
		} `json:"metadata"`
		Plugins []json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(data, &mk); err != nil {
		return e, &ManifestError{File: file, Diags: []Diagnostic{{Pos: doc.pos("plugins"), Message: "marketplace.json: " + err.Error()}}}
	}
	e.Marketplace = mk.Name
	var names []string
	for i, raw := range mk.Plugins {
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			continue
		}
		var n string
		_ = json.Unmarshal(fields["name"], &n)
		if n != name {
			names = append(names, n)
			continue
		}
		e.Pos = doc.pos("plugins", i)
		return e.read(doc, i, fields, mk.Metadata.PluginRoot)
	}
	return e, fmt.Errorf("%s lists no plugin %q; it lists: %s", file, name, strings.Join(names, ", "))
}

// read fills e from the entry's fields and checks its paths.
func (e MarketplaceEntry) read(doc jsonDoc, i int, fields map[string]json.RawMessage, root string) (MarketplaceEntry, error) {
	diag := func(pos, path, msg string) (MarketplaceEntry, error) {
		return e, &ManifestError{File: e.File, Diags: []Diagnostic{{Pos: pos, Path: fmt.Sprintf("plugins[%d].%s", i, path), Message: msg}}}
	}
	if !namePattern.MatchString(e.Name) {
		return diag(doc.pos("plugins", i, "name"), "name", fmt.Sprintf("plugin name %q must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", e.Name))
	}
	if raw, ok := fields["strict"]; ok {
		if err := json.Unmarshal(raw, &e.Strict); err != nil {
			return diag(doc.pos("plugins", i, "strict"), "strict", "strict must be true or false")
		}
	}
	e.Plugin = marketplaceSource(e.Name, fields["source"], root)
	if e.Plugin.Unsupported != "" {
		return diag(doc.pos("plugins", i, "source"), "source", fmt.Sprintf("plugin %s cannot be added: %s", e.Name, e.Plugin.Unsupported))
	}
	e.fields, e.pos, e.meta = map[string]json.RawMessage{}, map[string]string{}, map[string]json.RawMessage{}
	for _, f := range []string{"version", "description"} {
		var s string
		if json.Unmarshal(fields[f], &s) == nil && s != "" {
			e.meta[f] = fields[f]
		}
	}
	for _, f := range pluginComponents {
		raw, ok := fields[f]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			continue
		}
		e.fields[f], e.pos[f] = raw, doc.pos("plugins", i, f)
		for _, el := range elements(raw) {
			if el.path == "" && el.obj == nil {
				return diag(doc.pos("plugins", i, f), f, f+" must be a path, a list of paths or (hooks, mcpServers, lspServers) an object")
			}
			if el.path == "" {
				continue
			}
			pos, p := doc.pos("plugins", i, f), f
			if el.index >= 0 {
				pos, p = doc.pos("plugins", i, f, el.index), fmt.Sprintf("%s[%d]", f, el.index)
			}
			if why := confined(el.path); why != "" {
				return diag(pos, p, fmt.Sprintf("%s %q %s; the entry's paths must stay inside the plugin's folder %s", f, el.path, why, e.Plugin.Subdir))
			}
		}
	}
	if e.Plugin.Git != "" {
		return diag(doc.pos("plugins", i, "source"), "source", fmt.Sprintf("plugin %s is in another repository (%s), not in a folder of this marketplace; add it with `ollm ext add <marketplace> --plugin %s`, which names that repository (an entry that also defines the plugin cannot be added: ollm locks one repository per extension)", e.Name, e.Plugin.Git, e.Name))
	}
	return e, nil
}

// confined says why a path an entry names leaves the plugin's folder (""
// when it does not).
func confined(p string) string {
	if strings.Contains(p, "\\") {
		return "contains a backslash"
	}
	if path.IsAbs(p) || filepath.IsAbs(p) {
		return "is absolute"
	}
	if c := path.Clean(p); c == ".." || strings.HasPrefix(c, "../") {
		return "leaves the plugin's folder"
	}
	return ""
}

// element is one value of a component field: a path or an inline object;
// index is its place in a list (-1 for a single value).
type element struct {
	index int
	path  string
	obj   json.RawMessage
}

// elements splits a component field: a path, an object, or a list of
// either. A value that is neither is an element with no path and no
// object.
func elements(raw json.RawMessage) []element {
	one := func(i int, r json.RawMessage) element {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return element{index: i, path: s}
		}
		if t := bytes.TrimSpace(r); len(t) > 0 && t[0] == '{' {
			return element{index: i, obj: r}
		}
		return element{index: i}
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		out := make([]element, 0, len(list))
		for i, r := range list {
			out = append(out, one(i, r))
		}
		return out
	}
	return []element{one(-1, raw)}
}

// BuildMarketplacePlugin makes tree, the exported folder of entry e's
// plugin, into the plugin the entry defines: it writes
// .claude-plugin/plugin.json with the entry's components (merged into the
// plugin's own plugin.json under strict: true, alone under strict: false)
// and lays out skills/ as the skills field says. It refuses a plugin that
// Claude Code refuses too (strict: false beside a plugin.json that
// declares components) and a path that is a symlink.
func BuildMarketplacePlugin(tree string, e MarketplaceEntry) error {
	for _, f := range []string{ManifestFile, GeminiManifestFile} {
		if isFile(filepath.Join(tree, f)) {
			return fmt.Errorf("the folder %s of plugin %s holds a %s, which ollm would read instead of the marketplace entry; add the folder with --subdir instead", e.Plugin.Subdir, e.Name, f)
		}
	}
	final, hadOwn, err := ownPluginJSON(tree, e)
	if err != nil {
		return err
	}
	meta := MarketplaceMeta{Marketplace: e.Marketplace, File: e.File, Entry: e.Name, Strict: e.Strict,
		Folder: e.Plugin.Subdir, PluginJSON: hadOwn}
	for _, f := range pluginComponents {
		if _, ok := e.fields[f]; ok {
			meta.FromEntry = append(meta.FromEntry, f)
		}
	}
	final["name"] = mustJSON(e.Name)
	for f, raw := range e.meta {
		if _, own := final[f]; !own || !e.Strict {
			final[f] = raw // the entry's, unless plugin.json is the authority
		}
	}
	for _, f := range pluginComponents {
		raw, ok := e.fields[f]
		if !ok {
			continue
		}
		if err := checkEntryPaths(tree, e, f, raw, &meta); err != nil {
			return err
		}
		final[f] = mergeField(final[f], raw)
	}
	if raw, ok := final["skills"]; ok {
		skills, err := layOutSkills(tree, raw, &meta)
		if err != nil {
			return err
		}
		meta.Skills = skills
		delete(final, "skills") // laid out: the skills/ folder is the definition now
	}
	final["x-ollm-marketplace"] = mustJSON(meta)
	data, err := json.MarshalIndent(final, "", "  ")
	if err != nil {
		return err
	}
	file := filepath.Join(tree, filepath.FromSlash(ClaudePluginFile))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// ownPluginJSON reads the plugin's own plugin.json (an empty object when
// it has none). Under strict: false only its metadata may stay.
func ownPluginJSON(tree string, e MarketplaceEntry) (map[string]json.RawMessage, bool, error) {
	final := map[string]json.RawMessage{}
	data, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(ClaudePluginFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return final, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	own := path.Join(e.Plugin.Subdir, ClaudePluginFile)
	if err := json.Unmarshal(data, &final); err != nil {
		return nil, true, &ManifestError{File: own, Diags: []Diagnostic{{Pos: own, Message: "plugin.json is not valid JSON: " + err.Error()}}}
	}
	delete(final, "x-ollm-marketplace") // only ollm writes it
	if e.Strict {
		return final, true, nil
	}
	for _, f := range pluginComponents {
		if _, ok := final[f]; ok {
			return nil, true, &ManifestError{File: e.File, Diags: []Diagnostic{{Pos: e.Pos, Path: e.Name,
				Message: fmt.Sprintf("plugin %s is strict: false (defined by its entry) but its own %s declares %s too; Claude Code refuses such a plugin as well: drop strict: false or the plugin.json's components", e.Name, own, f)}}}
		}
	}
	return final, true, nil
}

// checkEntryPaths makes sure every path of the entry's field f is inside tree
// and no symlink; a path that does not exist is recorded as skipped.
func checkEntryPaths(tree string, e MarketplaceEntry, f string, raw json.RawMessage, meta *MarketplaceMeta) error {
	for _, el := range elements(raw) {
		if el.path == "" {
			continue
		}
		rel := path.Clean(el.path)
		for p := rel; p != "." && p != "/"; p = path.Dir(p) {
			fi, err := os.Lstat(filepath.Join(tree, filepath.FromSlash(p)))
			if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return &ManifestError{File: e.File, Diags: []Diagnostic{{Pos: e.pos[f], Path: e.Name + "." + f,
					Message: fmt.Sprintf("%s %q goes through the symlink %s; the entry's paths must be files of the plugin's folder", f, el.path, p)}}}
			}
		}
		if _, err := os.Stat(filepath.Join(tree, filepath.FromSlash(rel))); err != nil {
			meta.Skipped = append(meta.Skipped, skippedJSON{What: f + " " + el.path, Pos: e.File, Why: "the plugin's folder has no " + rel})
		}
	}
	return nil
}

// mergeField adds the entry's value of a component field to the plugin's
// own: one value stays as it is, two become a list of both.
func mergeField(own, entry json.RawMessage) json.RawMessage {
	if own == nil {
		return entry
	}
	var list []json.RawMessage
	for _, r := range []json.RawMessage{own, entry} {
		var l []json.RawMessage
		if json.Unmarshal(r, &l) == nil {
			list = append(list, l...)
		} else {
			list = append(list, r)
		}
	}
	return mustJSON(list)
}

func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // only values of known types are marshalled
	}
	return data
}

// layOutSkills makes the tree's skills/ folder hold exactly the skills the
// skills field names (a skill folder with a SKILL.md, or a folder of
// them), as Claude Code loads them: named folders replace the default
// skills/. Folders stay where they are too (a hook may name a file in
// them); only skills/ changes.
func layOutSkills(tree string, raw json.RawMessage, meta *MarketplaceMeta) ([]MarketplaceSkill, error) {
	var skills []MarketplaceSkill
	from := map[string]string{}
	for _, el := range elements(raw) {
		if el.path == "" {
			continue
		}
		dir := path.Clean(el.path)
		abs := filepath.Join(tree, filepath.FromSlash(dir))
		var found []string
		if isFile(filepath.Join(abs, "SKILL.md")) {
			found = []string{dir}
		} else if entries, err := os.ReadDir(abs); err == nil {
			for _, d := range entries {
				if d.IsDir() && isFile(filepath.Join(abs, d.Name(), "SKILL.md")) {
					found = append(found, path.Join(dir, d.Name()))
				}
			}
		}
		if len(found) == 0 && isDir(abs) {
			meta.Skipped = append(meta.Skipped, skippedJSON{What: "skills " + el.path, Why: "no SKILL.md in it or in its folders"})
		}
		for _, d := range found {
			name := path.Base(d)
			if name == "." {
				name = meta.Entry // the plugin's folder is the skill
			}
			if !namePattern.MatchString(name) {
				meta.Skipped = append(meta.Skipped, skippedJSON{What: "skill " + d, Why: fmt.Sprintf("the folder name %q is not a valid skill name", name)})
				continue
			}
			if prev, dup := from[name]; dup {
				meta.Skipped = append(meta.Skipped, skippedJSON{What: "skill " + d, Why: "another skill has the same folder name: " + prev})
				continue
			}
			from[name] = d
			skills = append(skills, MarketplaceSkill{Name: name, From: d})
		}
	}
	if err := stageSkills(tree, skills); err != nil {
		return nil, err
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills, nil
}

// stageSkills copies each skill folder into a staging folder (outside
// the tree, which a skill folder may be), then into the tree's skills/,
// whose other skills it removes (files that are not a skill's stay).
func stageSkills(tree string, skills []MarketplaceSkill) error {
	stage, err := os.MkdirTemp("", "ollm-skills-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	for _, s := range skills {
		if err := copyDir(filepath.Join(tree, filepath.FromSlash(s.From)), filepath.Join(stage, s.Name)); err != nil {
			return err
		}
	}
	old := filepath.Join(tree, "skills")
	if isFile(filepath.Join(old, "SKILL.md")) {
		if err := os.Remove(filepath.Join(old, "SKILL.md")); err != nil {
			return err
		}
	}
	entries, _ := os.ReadDir(old)
	for _, d := range entries {
		p := filepath.Join(old, d.Name())
		if d.IsDir() && isFile(filepath.Join(p, "SKILL.md")) {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(old, 0o755); err != nil {
		return err
	}
	for _, s := range skills {
		dst := filepath.Join(old, s.Name)
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
		if err := copyDir(filepath.Join(stage, s.Name), dst); err != nil {
			return err
		}
	}
	return nil
}

// copyDir copies the regular files of src into dst with their executable
// bits; a symlink is refused.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file (symlinks are not allowed in an extension)", p)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if fi.Mode().Perm()&0o111 != 0 {
			mode = 0o755
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
		return os.Chmod(target, mode)
	})
}

// fromEntry reports what the marketplace entry gave the plugin.
func (p *pluginImport) fromEntry() {
	e := p.entry
	fields := e.FromEntry
	as := "the plugin's definition (strict: false)"
	if e.Strict {
		as = "added to the plugin's own plugin.json"
		if !e.PluginJSON {
			as = "the plugin's definition (its folder has no plugin.json)"
		}
	}
	if len(fields) > 0 {
		as += ": " + strings.Join(fields, ", ")
	}
	what := "marketplace entry " + e.Entry
	if e.Marketplace != "" {
		what += " of " + e.Marketplace
	}
	if e.Folder != "" {
		what += " (folder " + e.Folder + ")"
	}
	p.rep.Imported = append(p.rep.Imported, schema.ImportItem{What: what, As: as, Pos: e.File})
	for _, s := range e.Skipped {
		p.rep.Skipped = append(p.rep.Skipped, schema.ImportItem{What: s.What, Pos: s.Pos, Why: s.Why})
	}
}

// entrySkill says where a skill of skills/ came from when the skills
// field laid the folder out ("" otherwise).
func (p *pluginImport) entrySkill(name string) string {
	if p.entry == nil {
		return ""
	}
	for _, s := range p.entry.Skills {
		if s.Name == name {
			return s.From
		}
	}
	return ""
}

// ReadMarketplace lists the plugins of the marketplace.json in dir (nil
// when there is none, or it is not valid JSON).
func ReadMarketplace(dir string) *MarketplaceError { return marketplace(dir) }

// ClaimsMarketplaceEntry reports whether the plugin.json in dir carries
// the record only ollm writes ("x-ollm-marketplace"): a tree that did not
// come from a marketplace entry must not claim one (`ollm ext info` would
// show its claim).
func ClaimsMarketplaceEntry(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ClaudePluginFile)))
	if err != nil {
		return false
	}
	var pj map[string]json.RawMessage
	if json.Unmarshal(data, &pj) != nil {
		return false
	}
	_, ok := pj["x-ollm-marketplace"]
	return ok
}
