package profiles

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

func problemsText(ps []schema.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Severity + " " + p.Extension + " " + p.Pos + " " + p.Message + "\n")
	}
	return b.String()
}

func names(exts []schema.Extension) string {
	var out []string
	for _, e := range exts {
		out = append(out, e.Name+"@"+string(e.Scope))
	}
	return strings.Join(out, ",")
}

// One broken manifest is skipped with an error naming its file and
// position; the others load.
func TestManifestIsolation(t *testing.T) {
	e := newEnv(t)
	e.write("home/extensions/good/manifest.json", manifestJSON("good", `"hooks": {"before_tool": [{"name": "a", "command": "./hooks/a.sh"}, {"name": "b", "command": "node", "args": ["hooks/b.js"]}]}`))
	bad := e.write("home/extensions/bad/manifest.json", "{\"name\": \"bad\",\n \"version\": \"1.0.0\",\n \"description\": \"x\",\n \"hooks\": {\"before_tool\": [{\"name\": \"a\"}]}}\n")
	e.write("home/extensions/typo/manifest.json", "{\"name\": \"typo\", \"version\": 1}\n")
	e.write("home/extensions/syntax/manifest.json", "{\"name\": \"syntax\",\n\"version\": \"1.0.0\" \"x\"}\n")
	e.write("home/extensions/escape/manifest.json", manifestJSON("escape", `"hooks": {"session_start": [{"name": "x", "command": "../../x"}]}`))
	e.write("home/extensions/unknown/manifest.json", manifestJSON("unknown", `"hookz": {}`))
	e.write("home/extensions/notanext/README.md", "hello")
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if got := names(r.Extensions); got != "good@user" {
		t.Errorf("loaded %s, want only good", got)
	}
	h := r.Extensions[0].Manifest.Hooks["before_tool"]
	if len(h) != 2 || h[0].Name != "a" || h[1].Name != "b" || h[1].Args[0] != "hooks/b.js" {
		t.Errorf("hooks of good: %+v", h)
	}
	text := problemsText(r.Problems)
	for _, want := range []string{
		"error bad " + bad + ":4:", // the hook without command, at its position
		"hooks.before_tool.0.command: field is required",
		"error typo ",
		"version",
		"error syntax " + filepath.Join(e.home.Dir, "extensions/syntax/manifest.json") + ":2:",
		`error escape `, `path "../../x" escapes the extension directory`,
		"error unknown ", "hookz: field not allowed",
		"warning notanext ", "no manifest.json",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("problems lack %q:\n%s", want, text)
		}
	}
}

// The more specific root wins: --ext over the workspace over the user
// directory; the shadowed copy is reported.
func TestExtensionPrecedence(t *testing.T) {
	e := newEnv(t)
	e.write("home/extensions/tool/manifest.json", manifestJSON("tool", ""))
	e.write("home/extensions/only-user/manifest.json", manifestJSON("only-user", ""))
	e.write("ws/.ollm/extensions/tool/manifest.json", manifestJSON("tool", ""))
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if got := names(r.Extensions); got != "only-user@user,tool@workspace" {
		t.Errorf("extensions = %s", got)
	}
	if !strings.Contains(problemsText(r.Problems), "shadowed by the workspace copy") {
		t.Errorf("no shadow warning: %s", problemsText(r.Problems))
	}
	flagDir := filepath.Dir(e.write(filepath.Join(t.TempDir(), "dev/tool/manifest.json"), manifestJSON("tool", "")))
	o := e.opts()
	o.Ext = []string{flagDir}
	r, err = Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(r.Extensions); got != "only-user@user,tool@flag" || r.Extensions[1].Dir != flagDir || len(r.Extensions[1].Shadows) != 2 {
		t.Errorf("extensions = %s %+v", got, r.Extensions)
	}
}

func TestDuplicateNamesInOneRoot(t *testing.T) {
	e := newEnv(t)
	first := e.write("home/extensions/a/manifest.json", manifestJSON("same", ""))
	second := e.write("home/extensions/b/manifest.json", manifestJSON("same", ""))
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Extensions) != 1 || r.Extensions[0].File != first {
		t.Errorf("extensions = %+v", r.Extensions)
	}
	text := problemsText(r.Problems)
	if !strings.Contains(text, `duplicate extension name "same": also declared by `+first) || !strings.Contains(problemsTextFiles(r.Problems), second) {
		t.Errorf("problems: %s", text)
	}
}

func problemsTextFiles(ps []schema.Problem) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.File)
	}
	return strings.Join(out, "\n")
}

func TestExtensionsDisabledLoadsNothing(t *testing.T) {
	e := newEnv(t)
	e.write("home/extensions/tool/manifest.json", manifestJSON("tool", ""))
	e.write("home/profile.cue", "extensions: enabled: false\n")
	r, err := Load(e.opts())
	if err != nil || len(r.Extensions) != 0 {
		t.Errorf("Load = %v, %+v", err, r.Extensions)
	}
}

func TestExtensionDirectoriesScopes(t *testing.T) {
	e := newEnv(t)
	e.write("home/more/u1/manifest.json", manifestJSON("u1", ""))
	e.write("ws/vendor/w1/manifest.json", manifestJSON("w1", ""))
	e.write("home/profile.cue", "extensions: directories: [\"more\"]\n")
	e.write("ws/ollm.cue", "extensions: directories: [\"vendor\"]\n")
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	// A directory the workspace declares is workspace-scoped: it needs approval.
	if got := names(r.Extensions); got != "u1@directory,w1@workspace" {
		t.Errorf("extensions = %s", got)
	}
}

func TestGeminiExtension(t *testing.T) {
	e := newEnv(t)
	e.write("home/extensions/gem/gemini-extension.json", `{
  "name": "gem", "version": "0.2.0",
  "mcpServers": {
    "local": {"command": "node", "args": ["${extensionPath}${/}server.js"], "env": {"K": "$K"}},
    "remote": {"httpUrl": "http://127.0.0.1:9/mcp", "headers": {"A": "b"}, "timeout": 5000},
    "events": {"url": "http://127.0.0.1:9/sse"}
  },
  "contextFileName": "GEMINI.md",
  "excludeTools": ["run_shell_command(rm -rf)"],
  "settings": [{"name": "API Key", "description": "the key", "envVar": "GEM_KEY", "sensitive": true}]
}`)
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Extensions) != 1 {
		t.Fatalf("extensions: %+v problems: %s", r.Extensions, problemsText(r.Problems))
	}
	x := r.Extensions[0]
	m := x.Manifest
	if x.Format != "gemini" || m.Name != "gem" || m.ContextFileName != "GEMINI.md" || len(m.ExcludeTools) != 1 {
		t.Errorf("manifest: %+v", x)
	}
	if s := m.MCPServers["local"]; s.Transport != "stdio" || s.Command != "node" {
		t.Errorf("local: %+v", s)
	}
	if s := m.MCPServers["remote"]; s.Transport != "http" || s.URL != "http://127.0.0.1:9/mcp" || s.Timeout != 5000 {
		t.Errorf("remote: %+v", s)
	}
	if s := m.MCPServers["events"]; s.Transport != "sse" {
		t.Errorf("events: %+v", s)
	}
	if len(m.Settings) != 1 || !m.Settings[0].Sensitive || m.Settings[0].EnvVar != "GEM_KEY" {
		t.Errorf("settings: %+v", m.Settings)
	}
}

func TestMCPJSONIsWorkspaceScoped(t *testing.T) {
	e := newEnv(t)
	e.write("ws/.mcp.json", `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"]}, "web": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}}`)
	e.write("home/profile.cue", "mcp: servers: mine: {command: \"my-server\"}\n")
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	s := r.Profile.MCP.Servers
	if s["fs"].Command != "npx" || s["web"].Transport != "sse" || s["mine"].Transport != "stdio" {
		t.Errorf("servers: %+v", s)
	}
	if r.ServerScopes["fs"] != schema.ScopeWorkspace || r.ServerScopes["web"] != schema.ScopeWorkspace || r.ServerScopes["mine"] != schema.ScopeUser {
		t.Errorf("scopes: %+v", r.ServerScopes)
	}
}

// The cache returns the same resolution without CUE, and notices an edited
// manifest or profile.
func TestCache(t *testing.T) {
	e := newEnv(t)
	e.write("home/extensions/a/manifest.json", manifestJSON("a", ""))
	e.write("ws/ollm.cue", "model: name: \"one\"\n")
	o := e.opts()
	o.NoCache = false
	r1, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Load(o)
	if err != nil || r2.Digest != r1.Digest || names(r2.Extensions) != "a@user" {
		t.Fatalf("cached load: %v %+v", err, r2)
	}
	e.write("home/extensions/a/manifest.json", manifestJSON("a", `"skills": [{"name": "s", "description": "d", "prompt": "p"}]`))
	r3, err := Load(o)
	if err != nil || r3.Digest == r1.Digest || len(r3.Extensions[0].Manifest.Skills) != 1 {
		t.Fatalf("edited manifest not noticed: %v %+v", err, r3)
	}
	e.write("home/extensions/b/manifest.json", manifestJSON("b", ""))
	if r4, _ := Load(o); names(r4.Extensions) != "a@user,b@user" {
		t.Errorf("added extension not noticed: %s", names(r4.Extensions))
	}
	e.write("ws/ollm.cue", "model: name: \"two\"\n")
	if r5, _ := Load(o); r5.Profile.Model.Name != "two" {
		t.Errorf("edited profile not noticed: %s", r5.Profile.Model.Name)
	}
}
