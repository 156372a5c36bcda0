package profiles

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genExtensions writes n extensions with 3 hooks, 2 MCP servers and 3
// settings each under OLLM_HOME/extensions.
func genExtensions(tb testing.TB, e *env, n int) {
	tb.Helper()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("ext%03d", i)
		extra := `"hooks": {
  "before_tool": [{"name": "guard", "command": "./hooks/guard.sh", "matcher": "shell", "failClosed": true}, {"name": "audit", "command": "python3", "args": ["hooks/audit.py"], "async": true}],
  "session_start": [{"name": "init", "command": "./hooks/init.sh", "timeout": 5000}]
},
"mcpServers": {
  "files": {"command": "node", "args": ["servers/files.js", "--root", "${workspacePath}"], "env": {"LEVEL": "${LOG_LEVEL:-info}"}},
  "web": {"transport": "http", "url": "http://127.0.0.1:9000/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
},
"settings": [
  {"name": "apiKey", "description": "API key", "envVar": "` + strings.ToUpper(name) + `_KEY", "sensitive": true, "required": false},
  {"name": "level", "description": "Log level", "default": "info", "enum": ["debug", "info"]},
  {"name": "retries", "description": "Retries", "type": "number", "default": 3}
]`
		e.write(filepath.Join(e.home.Extensions(), name, "manifest.json"), manifestJSON(name, extra))
	}
}

func TestGeneratedExtensionsLoad(t *testing.T) {
	e := newEnv(t)
	genExtensions(t, e, 50)
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Extensions) != 50 || len(r.Problems) != 0 {
		t.Fatalf("loaded %d extensions, problems: %s", len(r.Extensions), problemsText(r.Problems))
	}
}

// BenchmarkResolve50 resolves a profile with 50 extensions (3 hooks, 2 MCP
// servers and 3 settings each) through CUE, without the cache, as a
// fresh process does (no manifest remembered). Target: under 100 ms per
// resolve.
func BenchmarkResolve50(b *testing.B) {
	e := benchEnv(b, 50)
	o := e.opts()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		manifestMemo.reset()
		compilers.reset()
		if _, err := Load(o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolve50Reload is BenchmarkResolve50 in a process that has
// validated the manifests before (manifestMemo): the later resolves of
// `ollm profile apply`, /reload and `ollm acp` after a profile edit.
func BenchmarkResolve50Reload(b *testing.B) {
	e := benchEnv(b, 50)
	o := e.opts()
	manifestMemo.reset()
	if _, err := Load(o); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Load(o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolve50Cached is the same profile loaded from the resolution
// cache: what a session start pays when nothing changed.
func BenchmarkResolve50Cached(b *testing.B) {
	e := benchEnv(b, 50)
	o := e.opts()
	o.NoCache = false
	if _, err := Load(o); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Load(o); err != nil {
			b.Fatal(err)
		}
	}
}

func benchEnv(b *testing.B, n int) *env {
	d := b.TempDir()
	t := &testing.T{}
	e := &env{t: t}
	e.home.Dir = filepath.Join(d, "home")
	e.ws.Root = filepath.Join(d, "ws")
	genExtensions(b, e, n)
	e.write("ws/ollm.cue", "model: name: \"llama3.2\"\npolicy: rules: [{tool: \"shell\", action: \"deny\", when: {arg: \"$program\", equals: \"rm\"}}]\n")
	return e
}

// gatedBenchEnv is an unapproved workspace next to 50 user extensions: a
// workspace profile with a dozen widening values (held back) and five
// workspace extensions (held back).
func gatedBenchEnv(b *testing.B) *env {
	e := benchEnv(b, 50)
	e.write("ws/ollm.cue", `
model: {name: "small", provider: "openai", endpoint: "http://127.0.0.1:1/v1", apiKeyEnv: "X_KEY"}
mcp: {servers: ws: {command: "node", args: ["s.js"]}, overrides: files: env: A: "b"}
tools: {extraDirs: ["/"], disabled: ["web_fetch"], shell: {allowEnv: ["*"], timeout: 1000}}
hooks: {enabled: false, timeout: 1, definitions: [{name: "h", event: "before_tool", command: "true"}]}
policy: {mode: "yolo", rules: [{tool: "*", action: "allow"}, {tool: "shell", action: "deny", when: {arg: "command", contains: "rm"}}]}
settings: ext000: level: "debug"
`)
	for i := 0; i < 5; i++ {
		name := fmt.Sprintf("wsx%d", i)
		e.write(filepath.Join(e.ws.Extensions(), name, "manifest.json"), manifestJSON(name, `"mcpServers": {"s": {"command": "node", "args": ["s.js"]}}`))
	}
	return e
}

// BenchmarkResolveGated is BenchmarkResolve50 with an unapproved workspace
// whose widening values are held back: digest, approval lookup, the gate
// and CUE, without the cache.
func BenchmarkResolveGated(b *testing.B) {
	e := gatedBenchEnv(b)
	o := gatedOpts(e)
	if r, err := Load(o); err != nil || !r.Trust.Gated || len(r.Trust.Held) == 0 {
		b.Fatalf("not gated: %v %+v", err, r.Trust)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		manifestMemo.reset()
		compilers.reset()
		if _, err := Load(o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolveGatedCached is the same from the resolution cache: what
// a session start in an unapproved workspace pays when nothing changed.
func BenchmarkResolveGatedCached(b *testing.B) {
	e := gatedBenchEnv(b)
	o := gatedOpts(e)
	o.NoCache = false
	if _, err := Load(o); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Load(o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkManifest validates and decodes one manifest of
// BenchmarkResolve50 (3 hooks, 2 MCP servers, 3 settings): the part of a
// resolve that grows with the number of extensions.
func BenchmarkManifest(b *testing.B) {
	e := benchEnv(b, 1)
	file := filepath.Join(e.home.Extensions(), "ext000", "manifest.json")
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	c, err := newCompiler()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		manifestMemo.reset()
		if _, diags := c.manifest(file, data, "ollm"); len(diags) > 0 {
			b.Fatal(diags)
		}
	}
}
