package ext

import (
	"context"
	"reflect"
	"testing"

	"github.com/ollm/ollm/schema"
)

func TestParseExclusion(t *testing.T) {
	for _, tt := range []struct {
		entry        string
		gemini       bool
		tool, prefix string
	}{
		{"run_shell_command", true, "shell", ""},
		{"run_shell_command(rm -rf)", true, "shell", "rm -rf"},
		{"ShellTool(git push)", true, "shell", "git push"},
		{"replace", true, "edit_file", ""},
		{"google_web_search", true, "web_search", ""},
		{"write_file", false, "write_file", ""},
		{"replace", false, "replace", ""}, // ollm manifests use ollm's names
		{"github__create_issue", true, "github__create_issue", ""},
		{" shell ( sudo ) ", false, "shell", "sudo"},
	} {
		tool, prefix := ParseExclusion(tt.entry, tt.gemini)
		if tool != tt.tool || prefix != tt.prefix {
			t.Errorf("ParseExclusion(%q, %v) = %q, %q; want %q, %q", tt.entry, tt.gemini, tool, prefix, tt.tool, tt.prefix)
		}
	}
}

// A Gemini extension's excludeTools applies while it is active: its tools
// are listed as excluded, its command entries become deny rules, and
// disabling the extension gives them back.
func TestExclusionsFollowTheExtension(t *testing.T) {
	ws := t.TempDir()
	res := &schema.Resolved{Workspace: ws, Profile: schema.Profile{
		Extensions: schema.Extensions{Enabled: true, AutoEnable: true},
	}, Extensions: []schema.Extension{
		{Name: "gem", Dir: t.TempDir(), Scope: schema.ScopeUser, Format: "gemini", Manifest: schema.Manifest{Name: "gem", Version: "1.0.0",
			ExcludeTools: []string{"replace", "google_web_search", "run_shell_command(rm -rf)"}}},
		{Name: "plain", Dir: t.TempDir(), Scope: schema.ScopeWorkspace, Manifest: schema.Manifest{Name: "plain", Version: "1.0.0",
			ExcludeTools: []string{"web_search"}}},
	}}
	m := New(res, Options{})
	ctx := context.Background()
	if x := m.Exclusions(); len(x.Tools) != 0 || len(x.Commands) != 0 {
		t.Fatalf("exclusions before start = %+v", x)
	}
	if st := m.Start(ctx); st.Ready != 2 {
		t.Fatalf("start = %+v", st)
	}
	x := m.Exclusions()
	want := map[string][]string{"edit_file": {"gem"}, "web_search": {"gem", "plain"}}
	if !reflect.DeepEqual(x.Tools, want) {
		t.Fatalf("excluded tools = %v, want %v", x.Tools, want)
	}
	if by, ok := x.Excluded("web_search"); !ok || len(by) != 2 {
		t.Fatalf("Excluded(web_search) = %v, %v", by, ok)
	}
	rules, scopes := m.DenyRules()
	if len(rules) != 1 || rules[0].Tool != "shell" || rules[0].Action != "deny" || rules[0].When.StartsWith != "rm -rf" ||
		rules[0].When.Arg != "$command" || scopes[0] != schema.ScopeUser {
		t.Fatalf("deny rules = %+v %v", rules, scopes)
	}
	if err := m.Disable(ctx, "gem"); err != nil {
		t.Fatal(err)
	}
	x = m.Exclusions()
	if !reflect.DeepEqual(x.Tools, map[string][]string{"web_search": {"plain"}}) || len(x.Commands) != 0 {
		t.Fatalf("after disabling gem: %+v", x)
	}
}
