package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

// A marketplace written the way public ones are: a strict: false entry
// whose folder has no plugin.json (commands, inline hooks, an MCP file), a
// strict: false entry over the whole repository that picks skills (as
// Anthropic's skills marketplace does), and a default entry that adds a
// command to the plugin's own plugin.json.
const entryMarketplace = `{
  "name": "team",
  "owner": {"name": "team"},
  "plugins": [
    {
      "name": "tidy",
      "source": "./plugins/tidy",
      "strict": false,
      "description": "tidies",
      "version": "2.0.0",
      "commands": ["./cmds/tidy.md"],
      "hooks": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/g.sh"}]}]}},
      "mcpServers": "./servers.json"
    },
    {"name": "docs", "source": "./", "strict": false, "skills": ["./skills/pdf", "./skills/none"]},
    {"name": "both", "source": "./plugins/both", "commands": "./extra/more.md",
     "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo entry"}]}]}}
  ]
}
`

func writeEntryMarket(e *env) string {
	e.write("ws/m/.claude-plugin/marketplace.json", entryMarketplace)
	e.write("ws/m/plugins/tidy/cmds/tidy.md", "---\ndescription: Tidy up\n---\nTidy $ARGUMENTS\n")
	e.write("ws/m/plugins/tidy/commands/other.md", "not listed: the entry's commands replace the folder\n")
	e.write("ws/m/plugins/tidy/g.sh", "echo guard\n")
	e.write("ws/m/plugins/tidy/servers.json", `{"mcpServers": {"notes": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/s.js"]}}}`)
	e.write("ws/m/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: PDFs\n---\nRead {them}.\n")
	e.write("ws/m/skills/xlsx/SKILL.md", "---\nname: xlsx\ndescription: sheets\n---\nx\n")
	e.write("ws/m/plugins/both/.claude-plugin/plugin.json", `{"name": "both", "version": "1.0.0", "commands": "./commands/own.md", "hooks": "./h.json"}`)
	e.write("ws/m/plugins/both/h.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo own"}]}]}}`)
	e.write("ws/m/plugins/both/commands/own.md", "own\n")
	e.write("ws/m/plugins/both/extra/more.md", "more\n")
	return filepath.Join(e.ws.Root, "m")
}

// buildEntry does what the resolver does: the entry's folder is copied
// to a tree and the entry's plugin.json written into it.
func buildEntry(t *testing.T, market, name string) (string, error) {
	t.Helper()
	entry, err := ReadMarketplaceEntry(market, name)
	if err != nil {
		return "", err
	}
	tree := filepath.Join(t.TempDir(), name)
	if err := copyDir(filepath.Join(market, filepath.FromSlash(entry.Plugin.Subdir)), tree); err != nil {
		t.Fatal(err)
	}
	return tree, BuildMarketplacePlugin(tree, entry)
}

func TestMarketplaceEntryStrictFalse(t *testing.T) {
	e := newEnv(t)
	market := writeEntryMarket(e)
	tree, err := buildEntry(t, market, "tidy")
	if err != nil {
		t.Fatal(err)
	}
	file, m, err := ValidateManifest(tree)
	if err != nil || file != ClaudePluginFile || m.Name != "tidy" || m.Version != "2.0.0" || m.Description != "tidies" {
		t.Fatalf("manifest %s %+v %v", file, m, err)
	}
	if c := pluginCommands(t, tree); len(c) != 1 || c[0].Name != "tidy" || c[0].File != "cmds/tidy.md" {
		t.Errorf("commands: %+v", c)
	}
	if h := m.Hooks["PreToolUse"]; len(h) != 1 || h[0].Matcher != "Bash" || h[0].Dialect != "claude" {
		t.Errorf("hooks: %+v", m.Hooks)
	}
	if s := m.MCPServers["notes"]; len(s.Args) != 1 || s.Args[0] != "${extensionPath}/s.js" {
		t.Errorf("servers: %+v", m.MCPServers)
	}
	data, _ := os.ReadFile(filepath.Join(tree, filepath.FromSlash(ClaudePluginFile)))
	_, rep, diags := claudePlugin(tree, filepath.Join(tree, filepath.FromSlash(ClaudePluginFile)), data)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	first := rep.Imported[0]
	if first.What != "marketplace entry tidy of team (folder plugins/tidy)" || first.Pos != ".claude-plugin/marketplace.json" ||
		first.As != "the plugin's definition (strict: false): commands, hooks, mcpServers" {
		t.Errorf("first item: %+v", first)
	}

	// The same entry builds the same bytes; a changed entry others.
	again, err := buildEntry(t, market, "tidy")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := readAll(t, tree), readAll(t, again); a != b {
		t.Errorf("two builds differ:\n%s\n%s", a, b)
	}
	e.write("ws/m/.claude-plugin/marketplace.json", strings.Replace(entryMarketplace, `"matcher": "Bash"`, `"matcher": ""`, 1))
	changed, err := buildEntry(t, market, "tidy")
	if err != nil {
		t.Fatal(err)
	}
	if readAll(t, tree) == readAll(t, changed) {
		t.Error("a changed entry built the same tree")
	}
}

func readAll(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel+"\n"+string(data))
		}
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, "\n--\n")
}

func TestMarketplaceEntrySkills(t *testing.T) {
	e := newEnv(t)
	tree, err := buildEntry(t, writeEntryMarket(e), "docs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(tree, "skills", "xlsx", "SKILL.md")); !os.IsNotExist(err) {
		t.Errorf("a skill the entry does not name stayed: %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(tree, filepath.FromSlash(ClaudePluginFile)))
	_, rep, diags := claudePlugin(tree, filepath.Join(tree, filepath.FromSlash(ClaudePluginFile)), data)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	var items []string
	for _, it := range rep.Imported {
		items = append(items, it.What+" -> "+it.As)
	}
	for _, it := range rep.Skipped {
		items = append(items, "skipped "+it.What+": "+it.Why)
	}
	got := strings.Join(items, "\n")
	for _, w := range []string{
		"skill pdf -> skill (skills/pdf, named by the skills field)",
		"skipped skills ./skills/none: the plugin's folder has no skills/none",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("%q not in\n%s", w, got)
		}
	}
}

func TestMarketplaceEntrySupplements(t *testing.T) {
	e := newEnv(t)
	tree, err := buildEntry(t, writeEntryMarket(e), "both")
	if err != nil {
		t.Fatal(err)
	}
	_, m, err := ValidateManifest(tree)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range pluginCommands(t, tree) {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "more,own" || m.Version != "1.0.0" {
		t.Errorf("commands %v version %s", names, m.Version)
	}
	var cmds []string
	for _, h := range m.Hooks["Stop"] {
		cmds = append(cmds, h.Command)
	}
	if strings.Join(cmds, "|") != "echo entry|echo own" { // inline hooks first, then the hook files
		t.Errorf("hooks: %v", cmds)
	}
}

// An entry's paths stay inside its plugin's folder: a traversal, an
// absolute path and a symlink out are refused, naming marketplace.json's
// line and the field; so is strict: false beside a plugin.json that
// declares components (Claude Code refuses that too).
func TestMarketplaceEntryHostile(t *testing.T) {
	for _, tc := range []struct{ entry, want string }{
		{`"commands": ["./ok.md", "../../../etc/passwd"]`, `.claude-plugin/marketplace.json:4:77: commands "../../../etc/passwd" leaves the plugin's folder`},
		{`"hooks": "/etc/hooks.json"`, `.claude-plugin/marketplace.json:4:53: hooks "/etc/hooks.json" is absolute`},
		{`"mcpServers": ["./a/../../x.json"]`, `mcpServers "./a/../../x.json" leaves the plugin's folder`},
		{`"source": "../outside"`, `its folder ../outside is outside the marketplace's repository`},
	} {
		e := newEnv(t)
		src := `"source": "./p", `
		if strings.HasPrefix(tc.entry, `"source"`) {
			src = ""
		}
		e.write("ws/m/.claude-plugin/marketplace.json", "{\n  \"name\": \"m\",\n  \"plugins\": [\n    {\"name\": \"p\", "+src+`"strict": false, `+tc.entry+"}\n  ]\n}\n")
		_, err := ReadMarketplaceEntry(filepath.Join(e.ws.Root, "m"), "p")
		var me *ManifestError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v", tc.entry, err)
		}
	}

	e := newEnv(t)
	e.write("ws/m/.claude-plugin/marketplace.json", `{"name": "m", "plugins": [{"name": "p", "source": "./p", "strict": false, "commands": "./c/x.md"}]}`)
	e.write("ws/m/p/real/x.md", "x\n")
	if err := os.Symlink("/etc", filepath.Join(e.ws.Root, "m", "p", "c")); err != nil {
		t.Fatal(err)
	}
	entry, err := ReadMarketplaceEntry(filepath.Join(e.ws.Root, "m"), "p")
	if err != nil {
		t.Fatal(err)
	}
	err = BuildMarketplacePlugin(filepath.Join(e.ws.Root, "m", "p"), entry)
	if err == nil || !strings.Contains(err.Error(), `commands "./c/x.md" goes through the symlink c`) {
		t.Errorf("symlink: %v", err)
	}

	e.write("ws/m/p/.claude-plugin/plugin.json", `{"name": "p", "hooks": "./h.json"}`)
	if err := os.Remove(filepath.Join(e.ws.Root, "m", "p", "c")); err != nil {
		t.Fatal(err)
	}
	err = BuildMarketplacePlugin(filepath.Join(e.ws.Root, "m", "p"), entry)
	if err == nil || !strings.Contains(err.Error(), "strict: false (defined by its entry) but its own p/.claude-plugin/plugin.json declares hooks too") {
		t.Errorf("conflict: %v", err)
	}
}

func TestPluginSourceNeedsGit(t *testing.T) {
	e := newEnv(t)
	e.write("ws/ollm.cue", "extensions: sources: tidy: {path: \"./m\", plugin: \"tidy\"}\n")
	_, err := Load(e.opts())
	if err == nil || !strings.Contains(err.Error(), "ollm.cue:1:50: extensions.sources.tidy.plugin: conflicting values \"<only with git>\" and \"tidy\"") {
		t.Errorf("err = %v", err)
	}
}

// pluginCommands are the Claude Code commands the plugin in tree lists.
func pluginCommands(t *testing.T, tree string) []schema.ImportCommand {
	t.Helper()
	file := filepath.Join(tree, ClaudePluginFile)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rep, diags := claudePlugin(tree, file, data)
	if len(diags) > 0 || rep == nil {
		t.Fatalf("plugin: %+v", diags)
	}
	return rep.Commands
}
