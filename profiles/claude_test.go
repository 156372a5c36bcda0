package profiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

const claudeSettings = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "", "hooks": [{"type": "command", "command": "python3 .claude/hooks/log.py", "timeout": 5}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "bash guard.sh"}, {"type": "http", "url": "http://x"}]}
    ],
    "TeammateIdle": [{"hooks": [{"type": "command", "command": "true"}]}]
  }
}
`

func TestClaudeSettingsHooks(t *testing.T) {
	e := newEnv(t)
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(e.home.Dir, "claude"))
	e.write("ws/.claude/settings.json", claudeSettings)
	e.write("ws/.claude/settings.local.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo local"}]}]}}`)
	e.write("home/claude/settings.json", `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}}`)
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, h := range r.Profile.Hooks.Definitions {
		got = append(got, h.Name+"|"+h.Event+"|"+h.Matcher+"|"+h.Dialect+"|"+string(r.HookScopes[i]))
		if h.Name == "claude.PreToolUse.1" && h.Timeout != 5000 {
			t.Errorf("timeout in seconds: %d", h.Timeout)
		}
		if h.Name == "claude.PreToolUse.2" && h.Timeout != claudeDefaultTimeout {
			t.Errorf("default timeout: %d", h.Timeout)
		}
	}
	want := "claude.PreToolUse.1|PreToolUse||claude|workspace claude.PreToolUse.2|PreToolUse|Bash|claude|workspace claude-local.Stop.1|Stop||claude|workspace"
	if strings.Join(got, " ") != want {
		t.Errorf("hooks:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	var warnings []string
	for _, p := range r.Problems {
		warnings = append(warnings, p.Pos+" "+p.Message)
	}
	all := strings.Join(warnings, "\n")
	for _, w := range []string{
		"settings.json:5:86 Claude Code hook PreToolUse of type \"http\" skipped",
		"settings.json:7:5 Claude Code hook event TeammateIdle skipped",
	} {
		if !strings.Contains(all, w) {
			t.Errorf("no warning %q in\n%s", w, all)
		}
	}

	// The user's own file counts once the user profile opts in.
	e.write("home/profile.cue", "hooks: claudeUserSettings: true\n")
	r, err = Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	first := r.Profile.Hooks.Definitions[0]
	if first.Name != "claude-user.SessionStart.1" || r.HookScopes[0] != schema.ScopeUser {
		t.Errorf("user settings: %+v %v", first, r.HookScopes)
	}
}

func TestClaudeSettingsHeldUntilApproved(t *testing.T) {
	e := newEnv(t)
	e.write("ws/.claude/settings.json", claudeSettings)
	o := e.opts()
	o.Ungated = false
	r, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Profile.Hooks.Definitions) != 0 || !r.Trust.Gated {
		t.Fatalf("an unapproved workspace's Claude hooks ran: %+v", r.Profile.Hooks.Definitions)
	}
	if len(r.Trust.Held) != 1 || r.Trust.Held[0].Pos != filepath.Join(e.ws.Root, ".claude", "settings.json")+":2:3" ||
		!strings.Contains(r.Trust.Held[0].Value, "2 hooks: PreToolUse") {
		t.Errorf("held: %+v", r.Trust.Held)
	}
}

func TestClaudeSettingsInvalidJSON(t *testing.T) {
	e := newEnv(t)
	e.write("ws/.claude/settings.json", "{\n  \"hooks\": {,\n}\n")
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err) // never fails the profile
	}
	if len(r.Problems) == 0 || r.Problems[0].Severity != "error" || !strings.HasSuffix(r.Problems[0].Pos, "settings.json:2:13") ||
		!strings.Contains(r.Problems[0].Fix, "fix ") {
		t.Errorf("problems: %+v", r.Problems)
	}
}

func writePlugin(t *testing.T, e *env, dir string) {
	e.write(dir+"/.claude-plugin/plugin.json", `{"name": "guard", "description": "d", "hooks": "./extra/hooks.json", "agents": ["./agents/a.md"]}`)
	e.write(dir+"/hooks/hooks.json", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/g.sh"}]}]}}`)
	e.write(dir+"/extra/hooks.json", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo two"}]}], "Setup": []}}`)
	e.write(dir+"/commands/review.md", "---\ndescription: Review it\nmodel: big\n---\nReview $ARGUMENTS; answer {\"ok\": true}. Then $1.\n")
	e.write(dir+"/commands/sub/plain.md", "# Plain\nJust do it.\n")
	e.write(dir+"/.mcp.json", `{"mcpServers": {"notes": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/s.js"], "env": {"ROOT": "${CLAUDE_PLUGIN_ROOT}"}}}}`)
}

func TestClaudePluginLoads(t *testing.T) {
	e := newEnv(t)
	writePlugin(t, e, "home/extensions/guard")
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Extensions) != 1 {
		t.Fatalf("extensions: %+v problems %+v", r.Extensions, r.Problems)
	}
	x := r.Extensions[0]
	m := x.Manifest
	if x.Format != "claude" || m.Version != "0.0.0" || len(m.Hooks["PreToolUse"]) != 2 {
		t.Fatalf("extension: %+v", x)
	}
	h := m.Hooks["PreToolUse"]
	if h[0].Name != "PreToolUse.1" || h[1].Name != "PreToolUse.2" || h[0].Dialect != "claude" || h[0].Env["CLAUDE_PLUGIN_ROOT"] != "${extensionPath}" ||
		h[0].Env["CLAUDE_PLUGIN_DATA"] != "${extensionDataPath}" {
		t.Errorf("hooks: %+v", h)
	}
	if c := x.Import.Commands; len(c) != 2 || c[0] != (schema.ImportCommand{Name: "review", File: "commands/review.md"}) ||
		c[1] != (schema.ImportCommand{Name: "plain", File: "commands/sub/plain.md"}) || len(m.Skills) != 0 {
		t.Errorf("commands: %+v, skills %+v", c, m.Skills)
	}
	srv := m.MCPServers["notes"]
	if srv.Args[0] != "${extensionPath}/s.js" || srv.Env["ROOT"] != "${extensionPath}" || srv.Env["CLAUDE_PLUGIN_ROOT"] != "${extensionPath}" {
		t.Errorf("server: %+v", srv)
	}
	var skipped []string
	for _, s := range x.Import.Skipped {
		skipped = append(skipped, s.What)
	}
	want := "hook event Setup|agents agents/a.md"
	if strings.Join(skipped, "|") != want {
		t.Errorf("skipped: %q", strings.Join(skipped, "|"))
	}

	// Editing a hook file is a new resolution, also from the cache.
	o := e.opts()
	o.NoCache = false
	r1, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	e.write("home/extensions/guard/hooks/hooks.json", `{"hooks": {}}`)
	r2, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Digest == r2.Digest || len(r2.Extensions[0].Manifest.Hooks["PreToolUse"]) != 1 {
		t.Errorf("the cache kept the old hooks: %+v", r2.Extensions[0].Manifest.Hooks)
	}
}

func TestClaudePluginBadName(t *testing.T) {
	e := newEnv(t)
	e.write("home/extensions/bad/.claude-plugin/plugin.json", "{\n  \"name\": \"has space\"\n}\n")
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Extensions) != 0 || len(r.Problems) != 1 || !strings.HasSuffix(r.Problems[0].Pos, "plugin.json:2:3") {
		t.Errorf("problems: %+v", r.Problems)
	}
}

func TestValidateMarketplace(t *testing.T) {
	e := newEnv(t)
	root := filepath.Join(e.ws.Root, "market")
	e.write("ws/market/.claude-plugin/marketplace.json", `{"name": "m", "metadata": {"pluginRoot": "./plugins"}, "plugins": [
		{"name": "a", "source": "a"}, {"name": "b", "source": "./tools/b"}, {"name": "c", "source": {"source": "github", "repo": "o/c"}}]}`)
	_, _, err := ValidateManifest(root)
	var mk *MarketplaceError
	if !errors.As(err, &mk) || !errors.Is(err, ErrNoManifest) {
		t.Fatalf("err = %v", err)
	}
	msg := mk.Error()
	for _, w := range []string{"a: --subdir plugins/a", "b: --subdir tools/b", "c: --plugin c (from https://github.com/o/c.git)"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q not in %s", w, msg)
		}
	}
	writePlugin(t, e, "ws/market/plugins/a")
	file, m, err := ValidateManifest(filepath.Join(root, "plugins", "a"))
	if err != nil || file != ClaudePluginFile || m.Name != "guard" {
		t.Errorf("plugin: %s %+v %v", file, m, err)
	}
	if err := os.WriteFile(filepath.Join(root, "plugins", "a", ".claude-plugin", "plugin.json"), []byte(`{"name": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ValidateManifest(filepath.Join(root, "plugins", "a")); err == nil {
		t.Error("an invalid plugin.json validated")
	}
}

// A hook's if, shell and prompt load into the definition; what ollm
// cannot apply (an if it cannot read, an unknown shell, a prompt hook's
// model) is named once with what happens instead, and the hook loads.
func TestClaudeHookFields(t *testing.T) {
	e := newEnv(t)
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(e.home.Dir, "claude"))
	e.write("ws/.claude/settings.json", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "guard.sh", "if": "Bash(rm *)", "shell": "zsh"},
  {"type": "command", "command": "g2.sh", "if": "Task(x)", "shell": "tcsh"},
  {"type": "prompt", "prompt": "Safe? $ARGUMENTS", "model": "claude-haiku", "timeout": 5},
  {"type": "command", "command": "g3.sh"}]}],
  "Stop": [{"hooks": [{"type": "prompt", "prompt": "Done?"}]}]}}`)
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range r.Profile.Hooks.Definitions {
		got = append(got, fmt.Sprintf("%s|%s|%s|%s|%s|%d", h.Name, h.Command, h.Prompt, h.If, h.Shell, h.Timeout))
	}
	want := []string{
		"claude.PreToolUse.1|guard.sh||Bash(rm *)|zsh|60000",
		"claude.PreToolUse.2|g2.sh||||60000", // unreadable if, unknown shell: dropped
		"claude.PreToolUse.prompt1||Safe? $ARGUMENTS|||5000",
		"claude.PreToolUse.3|g3.sh||||60000", // numbered as before prompt hooks loaded
		"claude.Stop.prompt1||Done?|||30000",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hooks:\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var all []string
	for _, p := range r.Problems {
		all = append(all, p.Pos+" "+p.Message)
	}
	text := strings.Join(all, "\n")
	for _, w := range []string{
		`hook PreToolUse field if "Task(x)" skipped: cannot be applied (Task has no counterpart among ollm's tools): the hook runs for every call its matcher selects`,
		`hook PreToolUse field shell "tcsh" skipped: not a shell ollm knows`,
		`hook PreToolUse field model "claude-haiku" skipped: not applied: prompt hooks are answered by the session's model`,
	} {
		if !strings.Contains(text, w) {
			t.Errorf("no warning %q in\n%s", w, text)
		}
	}
	for _, no := range []string{`"Bash(rm *)"`, `"zsh"`, "not applied: the hook runs", "prompt\" skipped"} {
		if strings.Contains(text, no) {
			t.Errorf("a warning about %s, which now applies:\n%s", no, text)
		}
	}
}
