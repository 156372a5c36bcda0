package ext

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

const secret = "tok-s3cr3t-value"

// everything finds the MCP reference server that `make deps` installs.
func everything(t *testing.T) string {
	t.Helper()
	wd, _ := os.Getwd()
	for d := wd; filepath.Dir(d) != d; d = filepath.Dir(d) {
		p := filepath.Join(d, ".deps", "npm", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("the MCP reference servers are not installed; run make deps")
	return ""
}

type fixture struct {
	home, ws string
	res      *schema.Resolved
	hooks    *hooks.Registry
	tools    *tool.Registry
	skills   *skills.Registry
	servers  *MCPServers
	events   chan Event
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	script, err := filepath.Abs("testdata/env.sh")
	if err != nil {
		t.Fatal(err)
	}
	mkExt := func(name string) string {
		d := filepath.Join(home, "extensions", name)
		if err := os.MkdirAll(filepath.Join(d, "hooks"), 0o755); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(script)
		if err := os.WriteFile(filepath.Join(d, "hooks", "env.sh"), data, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	good, vault, needy := mkExt("good"), mkExt("vault"), mkExt("needy")
	skillDir := filepath.Join(good, "skills", "explain")
	os.MkdirAll(skillDir, 0o755)
	os.WriteFile(filepath.Join(skillDir, "SKILL.md"), []byte("---\nname: explain\ndescription: explain code\n---\nExplain {file}.\n"), 0o644)
	hook := func() map[string][]schema.Hook {
		return map[string][]schema.Hook{"before_tool": {{Name: "env", Command: "${extensionPath}${/}hooks${/}env.sh"}}}
	}
	res := &schema.Resolved{Workspace: ws, Profile: schema.Profile{
		Extensions: schema.Extensions{Enabled: true, AutoEnable: true},
		MCP:        schema.MCP{Enabled: true},
		Hooks:      schema.Hooks{Enabled: true},
		Settings:   map[string]map[string]any{"vault": {"token": secret}},
	}, Extensions: []schema.Extension{
		{Name: "good", Dir: good, Scope: schema.ScopeUser, Manifest: schema.Manifest{Name: "good", Version: "1.0.0",
			Hooks:      hook(),
			MCPServers: map[string]schema.MCPServer{"every": {Command: "node", Args: []string{everything(t), "stdio"}, Enabled: true}},
			Settings:   []schema.Setting{{Name: "region", Description: "r", EnvVar: "REGION", Default: "eu"}},
			Skills:     []schema.Skill{{Name: "review", Description: "review", Prompt: "Review {file}"}}}},
		{Name: "vault", Dir: vault, Scope: schema.ScopeUser, Manifest: schema.Manifest{Name: "vault", Version: "0.1.0",
			Hooks: hook(),
			// A server that dies at once; its command line holds the secret.
			MCPServers: map[string]schema.MCPServer{"crash": {Command: "sh", Args: []string{"-c", "echo boom >&2; exit 3", "--token=${VAULT_TOKEN}"}, Enabled: true}},
			Settings:   []schema.Setting{{Name: "token", Description: "t", EnvVar: "VAULT_TOKEN", Sensitive: true, Required: true}},
			Skills:     []schema.Skill{{Name: "review", Description: "vault review", Prompt: "Vault {file}"}}}},
		{Name: "needy", Dir: needy, Scope: schema.ScopeUser, Manifest: schema.Manifest{Name: "needy", Version: "1.0.0",
			Hooks:    hook(),
			Settings: []schema.Setting{{Name: "endpoint", Description: "e", EnvVar: "NEEDY_ENDPOINT", Required: true}}}},
	}, Problems: []schema.Problem{{Severity: "error", Extension: "broken", File: "/x/broken/manifest.json", Message: "invalid manifest, extension skipped: name: field is required"}}}
	f := &fixture{home: home, ws: ws, res: res, hooks: hooks.NewRegistry(), tools: tool.NewRegistry(), skills: skills.New(), events: make(chan Event, 100)}
	f.servers = &MCPServers{Options: mcp.Options{LogDir: filepath.Join(home, "logs"), Restart: mcp.Backoff{Max: -1}}}
	return f
}

func (f *fixture) manager() *Manager {
	return New(f.res, Options{
		StateFile: filepath.Join(f.home, "state", "extensions.json"), LogDir: filepath.Join(f.home, "logs"), Home: f.home,
		Hooks: f.hooks, Tools: f.tools, Servers: f.servers, Skills: f.skills,
		LookupEnv: func(string) (string, bool) { return "", false },
		OnEvent:   func(e Event) { f.events <- e },
	})
}

func hookExts(r *hooks.Registry) []string {
	var out []string
	for _, h := range r.All() {
		if !slices.Contains(out, h.Extension) {
			out = append(out, h.Extension)
		}
	}
	return out
}

// Requirements 4, 6, 10, 11, 14 and properties 15, 16, 18, 19, 22, 23, 24:
// isolation, real work on enable and disable, persistence, redaction.
func TestManagerEndToEnd(t *testing.T) {
	f := newFixture(t)
	m := f.manager()
	ctx := context.Background()
	st := m.Start(ctx)
	t.Cleanup(func() { m.Close() })

	// good is ready; vault is enabled but its server crashed; needy is off
	// for a missing setting; broken was never loaded.
	if st.Loaded != 4 || st.Ready != 1 || st.Failed != 3 {
		t.Fatalf("stats = %+v, errors %v", st, st.Errors)
	}
	joined := ""
	for _, e := range st.Errors {
		joined += e.Error() + "\n"
	}
	for _, want := range []string{"extension broken:", "extension vault: MCP server vault:crash failed", `extension needy: required setting "endpoint" is not set; set the environment variable NEEDY_ENDPOINT`} {
		if !strings.Contains(joined, want) {
			t.Errorf("errors %q lack %q", joined, want)
		}
	}
	if strings.Contains(joined, secret) {
		t.Fatalf("an error shows the secret: %s", joined)
	}
	if got := hookExts(f.hooks); !slices.Equal(got, []string{"good", "vault"}) {
		t.Fatalf("hooks registered for %v, want good and vault", got)
	}
	if _, ok := f.tools.Get("echo"); !ok {
		t.Fatalf("good's MCP tool echo is not in the tool registry: %v", names(f.tools))
	}
	if _, err := f.skills.Get("good:review"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.skills.Get("vault:review"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.skills.Get("explain"); err != nil {
		t.Fatalf("folder skill of good: %v", err)
	}

	// Hooks run with the extension root as cwd and settings in the env.
	eng := hooks.New(f.hooks, hooks.Options{Enabled: true, LogDir: filepath.Join(f.home, "logs")})
	out, err := eng.Emit(ctx, hooks.Event("before_tool"), map[string]any{"tool_name": "x"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := strings.Join(out.SystemMessages, "|")
	gd, _ := filepath.EvalSymlinks(f.res.Extensions[0].Dir)
	if !strings.Contains(msgs, "cwd="+gd+" region=eu") || !strings.Contains(msgs, "tokenlen="+strconv.Itoa(len(secret))) {
		t.Fatalf("hook messages = %q", msgs)
	}
	eng.Close()

	// Disable undoes everything and survives a restart.
	if err := m.Disable(ctx, "good"); err != nil {
		t.Fatal(err)
	}
	if got := hookExts(f.hooks); slices.Contains(got, "good") {
		t.Fatalf("good's hooks still registered: %v", got)
	}
	if _, ok := f.tools.Get("echo"); ok {
		t.Fatal("good's tools still registered after disable")
	}
	if f.servers.Status("good") != nil {
		t.Fatal("good's servers still running after disable")
	}
	if _, err := f.skills.Get("explain"); err == nil {
		t.Fatal("good's skills still registered after disable")
	}
	m.Close()

	f2 := newFixture(t)
	f2.home, f2.res = f.home, f.res
	m2 := f2.manager()
	st2 := m2.Start(ctx)
	t.Cleanup(func() { m2.Close() })
	if st2.Ready != 0 || slices.Contains(hookExts(f2.hooks), "good") {
		t.Fatalf("after restart good is active again: %+v", st2)
	}
	i, _ := m2.Info("good")
	if i.State != StateDisabled || !strings.Contains(i.Reason, "ollm ext disable") {
		t.Fatalf("good after restart = %+v", i)
	}
	if err := m2.Enable(ctx, "good"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f2.tools.Get("echo"); !ok {
		t.Fatal("enable did not bring good's tools back")
	}
	if err := m2.Enable(ctx, "needy"); err == nil || !strings.Contains(err.Error(), "extension needy") {
		t.Fatalf("enable needy = %v, want the missing setting error", err)
	}
	if err := m2.Enable(ctx, "broken"); err == nil || !strings.Contains(err.Error(), "manifest is invalid") {
		t.Fatalf("enable broken = %v", err)
	}

	// Reload tears down and loads again, keeping every error.
	rs := m2.Reload(ctx, f.res)
	if rs.Stopped != 2 || rs.Loaded != 4 || rs.Ready != 1 || rs.Failed != 3 || len(rs.Errors) != 3 {
		t.Fatalf("reload = %+v %v", rs, rs.Errors)
	}
	vi, _ := m2.Info("vault")
	for _, s := range vi.Settings {
		if s.Name == "token" && s.Value != Redacted {
			t.Fatalf("info shows token %v", s.Value)
		}
	}
	m2.Close()

	// Property 22: no log file holds the secret.
	logs := filepath.Join(f.home, "logs")
	n := 0
	filepath.WalkDir(logs, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, _ := os.ReadFile(p)
		if strings.Contains(string(data), secret) {
			t.Errorf("%s holds the secret:\n%s", p, data)
		}
		return nil
	})
	if n < 3 {
		t.Fatalf("only %d log files under %s; the test checks nothing", n, logs)
	}
	close(f.events)
	var sawFailed bool
	for e := range f.events {
		if e.Err != nil && strings.Contains(e.Err.Error(), secret) {
			t.Fatalf("event shows the secret: %v", e.Err)
		}
		sawFailed = sawFailed || e.State == StateFailed
	}
	if !sawFailed {
		t.Fatal("no failed event was published")
	}
}

func TestExtensionsDisabledLoadsNothing(t *testing.T) {
	f := newFixture(t)
	f.res.Profile.Extensions.Enabled = false
	m := f.manager()
	st := m.Start(context.Background())
	defer m.Close()
	if st.Loaded != 0 || st.Ready != 0 || len(f.hooks.All()) != 0 || len(m.List()) != 0 {
		t.Fatalf("extensions.enabled false loaded %+v", st)
	}
	if err := m.Enable(context.Background(), "good"); err == nil {
		t.Fatal("enable worked with extensions.enabled false")
	}
}

func TestAutoEnableOffAndOverride(t *testing.T) {
	f := newFixture(t)
	f.res.Profile.Extensions.AutoEnable = false
	f.res.Profile.Extensions.Enable = map[string]bool{"vault": true, "needy": false}
	m := f.manager()
	m.Start(context.Background())
	defer m.Close()
	if got := hookExts(f.hooks); !slices.Equal(got, []string{"vault"}) {
		t.Fatalf("active = %v, want only vault (override on)", got)
	}
	if err := m.Enable(context.Background(), "needy"); err == nil || !strings.Contains(err.Error(), "extensions.enable.needy is false") {
		t.Fatalf("enable needy = %v", err)
	}
	if err := m.Disable(context.Background(), "vault"); err == nil || !strings.Contains(err.Error(), "extensions.enable.vault is true") {
		t.Fatalf("disable vault = %v", err)
	}
	if _, err := m.Info("nope"); err == nil {
		t.Fatal("Info of an unknown extension worked")
	}
}

func names(r *tool.Registry) []string {
	var out []string
	for _, t := range r.List() {
		out = append(out, t.Name())
	}
	return out
}
