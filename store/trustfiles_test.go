package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustPath: every kind of trust file is caught, through a symlinked
// directory, a link to the file, another case, an ignorable code point; the
// project's own files, an extension's data, ollm's context files and
// .gitmodules are not.
func TestTrustPath(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	home := filepath.Join(dir, "ollm-home")
	for _, d := range []string{".git/hooks", "sub/.git", "src", "bare/objects", "bare/refs", home} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil && !filepath.IsAbs(d) {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".git/config", "src/main.go", "bare/HEAD"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"innocent": ".git", "cfg": ".git/config", "dangling": ".git/hooks/post-checkout", "srclink": "src"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	ws := Workspace{Root: root}
	cases := []struct {
		path string
		want string // a word of the reason; "" means not a trust file
	}{
		{"ollm.cue", "decides what ollm runs"},
		{"OLLM.CUE", "decides what ollm runs"},
		{"ollm.lock", "pins"},
		{".ollm/extensions/x/hook.sh", "inside .ollm"},
		{".ollm/memory.json", "inside .ollm"},
		{".ollm/data/lint/cache.db", "inside .ollm"},
		{".ollm/data/x", "inside .ollm"},
		{".mcp.json", "MCP servers"},
		{".claude/settings.local.json", "Claude Code"},
		{".claude/commands/deploy.md", "Claude Code"},
		{".gemini/settings.json", "Gemini CLI"},
		{".vscode/tasks.json", "editor runs"},
		{".vscode/launch.json", ""},
		{".git/config", "git runs"},
		{".git/hooks/pre-commit", "git runs"},
		{".git/modules/lib/config", "git runs"},
		{".git", "git runs"},
		{"sub/.git/config", "git runs"},
		{"lib/.git", "git runs"},
		{".GIT/hooks/pre-commit", "git runs"},
		{".g\u200cit/config", "git runs"},
		{".git./config", "git runs"},
		{"innocent/config", "git runs"},
		{"innocent/hooks/pre-commit", "git runs"},
		{"cfg", "git runs"},
		{"dangling", "git runs"},
		{"bare/config", "bare git repository"},
		{"src/main.go", ""},
		{"srclink/main.go", ""},
		{"README.md", ""},
		{"AGENTS.md", ""},
		{"CLAUDE.md", ""},
		{".gitmodules", ""},
		{".gitignore", ""},
		{".envrc", ""},
		{"docs/ollm.cue.md", ""},
	}
	for _, c := range cases {
		why, ok := TrustPath(ws, home, filepath.Join(root, c.path))
		if c.want == "" {
			if ok {
				t.Errorf("%s: a trust file (%s), want not", c.path, why)
			}
			continue
		}
		if !ok || !strings.Contains(why, c.want) {
			t.Errorf("%s: TrustPath = %q, %v; want a reason with %q", c.path, why, ok, c.want)
		}
	}
	for _, p := range []string{home, filepath.Join(home, "profile.cue"), filepath.Join(home, "trusted-hooks.json")} {
		if why, ok := TrustPath(ws, home, p); !ok || !strings.Contains(why, "$OLLM_HOME") {
			t.Errorf("%s: TrustPath = %q, %v; want $OLLM_HOME", p, why, ok)
		}
	}
	if why, ok := TrustPath(ws, home, filepath.Join(root, "ollm.cue")); why != "ollm.cue decides what ollm runs: its hooks, MCP servers, extensions, sandbox and policy" || !ok {
		t.Errorf("ollm.cue: %q", why)
	}
}

// TestTrustPathLinkedRoot: a workspace reached through a symlink, and a
// link from the workspace into $OLLM_HOME, are judged by where they lead.
func TestTrustPathLinkedRoot(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	home := filepath.Join(dir, "home")
	for _, d := range []string{real, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(real, "h")); err != nil {
		t.Fatal(err)
	}
	if _, ok := TrustPath(Workspace{Root: link}, home, filepath.Join(real, "ollm.cue")); !ok {
		t.Error("real/ollm.cue of a workspace named by a link: not a trust file")
	}
	if _, ok := TrustPath(Workspace{Root: real}, home, filepath.Join(link, ".mcp.json")); !ok {
		t.Error("link/.mcp.json: not a trust file")
	}
	if why, ok := TrustPath(Workspace{Root: real}, home, filepath.Join(real, "h", "profile.cue")); !ok || !strings.Contains(why, "OLLM_HOME") {
		t.Errorf("a link into $OLLM_HOME: %q, %v", why, ok)
	}
}

// TestSandboxTrustNames: the sandbox protects what it protected before,
// from the one list.
func TestSandboxTrustNames(t *testing.T) {
	got := strings.Join(SandboxTrustNames(), " ")
	for _, n := range []string{"ollm.cue", "ollm.lock", ".ollm", ".mcp.json", ".claude", ".gemini", ".git/hooks", ".git/config"} {
		if !strings.Contains(" "+got+" ", " "+n+" ") {
			t.Errorf("SandboxTrustNames = %s, missing %s", got, n)
		}
	}
	if strings.Contains(" "+got+" ", " .git ") {
		t.Errorf("SandboxTrustNames = %s: all of .git read-only breaks git commit", got)
	}
}
