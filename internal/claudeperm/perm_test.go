package claudeperm_test

import (
	"strings"
	"testing"

	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/internal/claudeperm"
	"github.com/ollm/ollm/schema"
)

// Each Claude Code rule, converted and compiled, decides real calls as
// Claude Code documents it: the rule's action when it matches, the
// default (ask) when it does not.
func TestConvertDecides(t *testing.T) {
	b := claudeperm.Base{Root: "/ws", Home: "/home/u"}
	cases := []struct {
		spec, tool string
		kind       tool.Kind
		args       map[string]any
		match      bool
		// mixed: only part of the call matches (a chained command, one
		// of several paths): a deny holds, an allow does not.
		mixed bool
	}{
		{"Bash(npm run test:*)", "shell", tool.KindExecute, map[string]any{"command": "npm run test"}, true, false},
		{"Bash(npm run test:*)", "shell", tool.KindExecute, map[string]any{"command": "npm run test -- --watch"}, true, false},
		{"Bash(npm run test:*)", "shell", tool.KindExecute, map[string]any{"command": "npm run testing"}, false, false},
		{"Bash(npm run test:*)", "shell", tool.KindExecute, map[string]any{"command": "npm run test && rm -rf /"}, false, true},
		{"Bash(git log *)", "shell", tool.KindExecute, map[string]any{"command": "git log --oneline"}, true, false},
		{"Bash(ls)", "shell", tool.KindExecute, map[string]any{"command": "ls -la"}, false, false},
		{"Bash", "shell", tool.KindExecute, map[string]any{"command": "anything"}, true, false},
		{"Read(./secrets/**)", "read_file", tool.KindRead, map[string]any{"path": "secrets/a/key"}, true, false},
		{"Read(./secrets/**)", "read_file", tool.KindRead, map[string]any{"path": "./secrets/key"}, true, false},
		{"Read(./secrets/**)", "read_file", tool.KindRead, map[string]any{"path": "/ws/secrets/key"}, true, false},
		{"Read(./secrets/**)", "grep", tool.KindSearch, map[string]any{"pattern": "x", "path": "secrets/k"}, true, false},
		{"Read(./secrets/**)", "read_file", tool.KindRead, map[string]any{"path": "src/secrets.go"}, false, false},
		{"Read(.env)", "read_file", tool.KindRead, map[string]any{"path": "deep/dir/.env"}, true, false},
		{"Read(//etc/passwd)", "read_file", tool.KindRead, map[string]any{"path": "/etc/passwd"}, true, false},
		{"Read(~/.ssh/**)", "read_file", tool.KindRead, map[string]any{"path": "/home/u/.ssh/id_rsa"}, true, false},
		{"Read(./secrets/**)", "read_many_files", tool.KindRead, map[string]any{"paths": []any{"README", "secrets/k"}}, false, true},
		{"Edit", "write_file", tool.KindEdit, map[string]any{"path": "a", "content": "x"}, true, false},
		{"Edit(src/**)", "edit_file", tool.KindEdit, map[string]any{"path": "src/a.go"}, true, false},
		{"Edit(src/**)", "edit_file", tool.KindEdit, map[string]any{"path": "docs/a.md"}, false, false},
		{"WebFetch(domain:example.com)", "web_fetch", tool.KindFetch, map[string]any{"url": "https://example.com/x"}, true, false},
		{"WebFetch(domain:example.com)", "web_fetch", tool.KindFetch, map[string]any{"url": "https://EXAMPLE.com."}, true, false},
		{"WebFetch(domain:example.com)", "web_fetch", tool.KindFetch, map[string]any{"url": "https://example.com.evil.net/"}, false, false},
		{"WebFetch(domain:example.com)", "web_fetch", tool.KindFetch, map[string]any{"url": "https://evil.net/?example.com"}, false, false},
		{"WebFetch(domain:*.example.com)", "web_fetch", tool.KindFetch, map[string]any{"url": "http://a.b.example.com:8080/"}, true, false},
	}
	for _, c := range cases {
		for _, action := range []string{"deny", "allow"} {
			r, err := claudeperm.Convert(c.spec, action, "test", b)
			if err != nil {
				t.Fatalf("%s: %v", c.spec, err)
			}
			pol, err := policy.Compile(schema.Policy{Rules: []schema.PolicyRule{r.Policy}}, policy.Options{})
			if err != nil {
				t.Fatalf("%s: compile %+v: %v", c.spec, r.Policy, err)
			}
			d := pol.Decide(policy.Facts{Name: c.tool, Kind: c.kind}, c.args)
			want := policy.Ask
			if c.match || c.mixed && action == "deny" {
				want = policy.Action(action)
			}
			if d.Action != want {
				t.Errorf("%s as %s on %s %v: %s, want %s (%s)", c.spec, action, c.tool, c.args, d.Action, want, d.Reason)
			}
		}
	}
}

func TestConvertMCPAndErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"mcp__github__create_issue":       "mcp:github:create_issue",
		"mcp__github":                     "mcp:github:*",
		"mcp__github__*":                  "mcp:github:*",
		"mcp__plugin_guard_notes__lookup": "mcp:guard:notes:lookup",
	} {
		r, err := claudeperm.Convert(spec, "deny", "", claudeperm.Base{})
		if err != nil || r.Policy.Tool != want {
			t.Errorf("%s: %q %v, want %q", spec, r.Policy.Tool, err, want)
		}
	}
	for _, spec := range []string{"Task(reviewer)", "WebSearch(x)", "WebFetch(https://x)", "mcp__*", "Bash(("} {
		if _, err := claudeperm.Convert(spec, "deny", "", claudeperm.Base{}); err == nil {
			t.Errorf("%s: no error", spec)
		}
	}
}

func TestSplit(t *testing.T) {
	got := strings.Join(claudeperm.Split("Bash(git add:*), Bash(git status:*) Read, \"Edit\""), "|")
	if got != "Bash(git add:*)|Bash(git status:*)|Read|Edit" {
		t.Errorf("split: %s", got)
	}
}
