package profiles

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

var alwaysGit = schema.PolicyRule{Name: "always allow shell: git", Tool: "shell", Action: "allow",
	When: &schema.Condition{Arg: "$program", Equals: "git"}}

const gitLine = `{name: "always allow shell: git", tool: "shell", action: "allow", when: {arg: "$program", equals: "git"}},`

func TestAddPolicyRulesSplice(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no file", "", "// Added by ollm when you answered \"always allow\".\npolicy: rules: [\n\t" + gitLine + "\n]\n"},
		{"no policy", "// mine\nmodel: name: \"llama3\"", "// mine\nmodel: name: \"llama3\"\n\n// Added by ollm when you answered \"always allow\".\npolicy: rules: [\n\t" + gitLine + "\n]\n"},
		{"policy without rules", "policy: mode: \"auto_edit\"\n", "policy: mode: \"auto_edit\"\n\n// Added by ollm when you answered \"always allow\".\npolicy: rules: [\n\t" + gitLine + "\n]\n"},
		{"list on its own lines",
			"policy: rules: [\n\t{tool: \"read_file\", action: \"allow\"}, // reads\n]\nmodel: name: \"x\"\n",
			"policy: rules: [\n\t{tool: \"read_file\", action: \"allow\"}, // reads\n\t" + gitLine + "\n]\nmodel: name: \"x\"\n"},
		{"nested, no trailing comma",
			"policy: {\n\tmode: \"default\"\n\trules: [\n\t\t{tool: \"x\", action: \"deny\"}\n\t]\n}\n",
			"policy: {\n\tmode: \"default\"\n\trules: [\n\t\t{tool: \"x\", action: \"deny\"}\n\t\t" + gitLine + "\n\t]\n}\n"},
		{"one line", "policy: rules: [{tool: \"x\", action: \"deny\"}]\n",
			"policy: rules: [{tool: \"x\", action: \"deny\"}\n\t" + gitLine + "\n]\n"},
		{"empty list", "package ollm\n\npolicy: {\n\trules: []\n}\n",
			"package ollm\n\npolicy: {\n\trules: [\n\t\t" + gitLine + "\n\t]\n}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := spliceRules("profile.cue", []byte(tc.in), []schema.PolicyRule{alwaysGit})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestAddPolicyRulesRefuses(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"not a list", "policy: rules: _base\n_base: []\n", "not a list literal"},
		{"does not parse", "policy: {\n", "does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "profile.cue")
			if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			err := AddPolicyRules(path, alwaysGit)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `equals: "git"`) {
				t.Fatalf("err = %v", err)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.in {
				t.Errorf("file changed to %q", b)
			}
		})
	}
}

// The rules land in the resolved profile through the real loader, labelled
// as the user's, after the rules the file already had.
func TestAddPolicyRulesLoads(t *testing.T) {
	home := store.Home{Dir: filepath.Join(t.TempDir(), "home")}
	ws := store.Workspace{Root: t.TempDir()}
	prior := "// my profile\npolicy: {\n\tdefaultAction: \"ask\"\n\trules: [\n\t\t{tool: \"read_file\", action: \"allow\"},\n\t]\n}\n"
	if err := store.WriteFile(home.Profile(), []byte(prior), 0o644); err != nil {
		t.Fatal(err)
	}
	mcp := schema.PolicyRule{Name: "always allow github:create_issue", Tool: "github:create_issue", Action: "allow"}
	if err := AddPolicyRules(home.Profile(), alwaysGit, mcp); err != nil {
		t.Fatal(err)
	}
	r, err := Load(Options{Home: home, Workspace: ws, NoCache: true, Ungated: true})
	if err != nil {
		t.Fatal(err)
	}
	rules := r.Profile.Policy.Rules[1:] // after the builtin read-only rule
	if len(rules) != 3 || rules[0].Tool != "read_file" || rules[1].Name != alwaysGit.Name || rules[2].Tool != "github:create_issue" {
		t.Fatalf("rules = %+v", rules)
	}
	if w := rules[1].When; w == nil || w.Arg != "$program" || w.Equals != "git" {
		t.Errorf("when = %+v", w)
	}
	if len(r.RuleScopes) != 4 || r.RuleScopes[2] != schema.ScopeUser {
		t.Errorf("scopes = %v", r.RuleScopes)
	}
	if b, _ := os.ReadFile(home.Profile()); !strings.HasPrefix(string(b), prior[:strings.LastIndex(prior, "\t]")]) {
		t.Errorf("the file's own text changed:\n%s", b)
	}
}

// Concurrent answers are all kept.
func TestAddPolicyRulesConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "profile.cue")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := AddPolicyRules(path, schema.PolicyRule{Tool: fmt.Sprintf("tool%d", i), Action: "allow"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	b, _ := os.ReadFile(path)
	for i := range 8 {
		if !strings.Contains(string(b), fmt.Sprintf(`tool: "tool%d"`, i)) {
			t.Errorf("tool%d missing:\n%s", i, b)
		}
	}
	if n := strings.Count(string(b), "policy: rules:"); n != 1 {
		t.Errorf("%d policy.rules lists:\n%s", n, b)
	}
}
