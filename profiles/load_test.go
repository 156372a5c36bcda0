package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

func TestBuiltinDefaults(t *testing.T) {
	e := newEnv(t)
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	p := r.Profile
	if p.Version != 1 || p.Model.Provider != "ollama" || p.Model.Endpoint != "http://127.0.0.1:11434" || p.Model.Name == "" {
		t.Errorf("model defaults: %+v", p.Model)
	}
	if !p.Hooks.Enabled || p.Hooks.Timeout != 30000 || p.Hooks.TrustWorkspace {
		t.Errorf("hooks defaults: %+v", p.Hooks)
	}
	if !p.MCP.Enabled || p.MCP.ConnectionTimeout != 30000 {
		t.Errorf("mcp defaults: %+v", p.MCP)
	}
	if p.Policy.DefaultAction != "ask" || p.Policy.Mode != "default" {
		t.Errorf("policy defaults: %+v", p.Policy)
	}
	if len(p.Policy.Rules) != 1 || p.Policy.Rules[0].Action != "allow" || p.Policy.Rules[0].When.OneOf[0] != "read" || r.RuleScopes[0] != schema.ScopeBuiltin {
		t.Errorf("builtin read-only rule: %+v %v", p.Policy.Rules, r.RuleScopes)
	}
	if !p.Extensions.Enabled || !p.Extensions.AutoEnable || p.Agent.MaxTurns != 50 {
		t.Errorf("extensions/agent defaults: %+v %+v", p.Extensions, p.Agent)
	}
	if len(r.Layers) != 1 || r.Layers[0].Scope != schema.ScopeBuiltin {
		t.Errorf("layers: %+v", r.Layers)
	}
}

func TestLayersUnify(t *testing.T) {
	e := newEnv(t)
	e.write("home/profile.cue", "model: name: \"llama3.2\"\npolicy: rules: [{tool: \"read_file\", action: \"allow\"}]\n")
	e.write("ws/ollm.cue", "package team\nmodel: provider: \"ollama\"\npolicy: rules: [{tool: \"shell\", action: \"deny\"}, {tool: \"*\", action: \"ask\"}]\nhooks: definitions: [{name: \"g\", event: \"PreToolUse\", command: \"./g.sh\"}]\n")
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if r.Profile.Model.Name != "llama3.2" {
		t.Errorf("model.name = %q", r.Profile.Model.Name)
	}
	var tools []string
	for _, rule := range r.Profile.Policy.Rules {
		tools = append(tools, rule.Tool+"="+rule.Action)
	}
	if got := strings.Join(tools, ","); got != "*=allow,read_file=allow,shell=deny,*=ask" {
		t.Errorf("rules in layer order: %s", got)
	}
	wantScopes := []schema.Scope{schema.ScopeBuiltin, schema.ScopeUser, schema.ScopeWorkspace, schema.ScopeWorkspace}
	for i, s := range wantScopes {
		if r.RuleScopes[i] != s {
			t.Errorf("RuleScopes = %v, want %v", r.RuleScopes, wantScopes)
			break
		}
	}
	if len(r.Profile.Hooks.Definitions) != 1 || r.HookScopes[0] != schema.ScopeWorkspace || r.Profile.Hooks.Definitions[0].Dialect != "ollm" {
		t.Errorf("hooks: %+v scopes %v", r.Profile.Hooks.Definitions, r.HookScopes)
	}
}

func TestFlagModelOverrides(t *testing.T) {
	e := newEnv(t)
	e.write("ws/ollm.cue", "model: name: \"llama3.2\"\n")
	o := e.opts()
	o.Model = "qwen3:14b"
	r, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Profile.Model.Name != "qwen3:14b" {
		t.Errorf("model.name = %q", r.Profile.Model.Name)
	}
}

// Every bad input names the file and position; nothing is returned.
func TestInvalidProfiles(t *testing.T) {
	tests := []struct {
		name, user, ws string
		want           []string // regexps over the error text
	}{
		{"conflict between layers", "policy: defaultAction: \"deny\"\n", "policy: defaultAction: \"allow\"\n",
			[]string{`conflicting values "(allow|deny)" and "(allow|deny)"`, `home/profile\.cue:1:24`, `ws/ollm\.cue:1:24`}},
		{"unknown field", "", "modle: name: \"x\"\n", []string{`ws/ollm\.cue:1:1: modle: field not allowed`}},
		{"wrong type", "", "hooks: timeout: \"30s\"\n", []string{`ws/ollm\.cue:1:17`, `hooks\.timeout`}},
		{"out of range", "", "hooks: timeout: -5\n", []string{`ws/ollm\.cue:1:17`, `hooks\.timeout: invalid value -5 \(out of bound >0\)`}},
		{"bad enum", "", "policy: mode: \"reckless\"\n", []string{`ws/ollm\.cue:1:15`, `policy\.mode`}},
		{"syntax error", "model: name: \"x\n", "", []string{`home/profile\.cue:1:14`}},
		{"missing url", "", "mcp: servers: web: {transport: \"sse\"}\n", []string{`ws/ollm\.cue:1:\d+`, `mcp\.servers\.web\.url: field is required`}},
		{"bad hook event", "", "hooks: definitions: [{name: \"x\", event: \"whenever\", command: \"x\"}]\n", []string{`ws/ollm\.cue:1:\d+`, `event`}},
		{"version", "", "version: 2\n", []string{`ws/ollm\.cue:1:10`, `conflicting values (1 and 2|2 and 1)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if tt.user != "" {
				e.write("home/profile.cue", tt.user)
			}
			if tt.ws != "" {
				e.write("ws/ollm.cue", tt.ws)
			}
			r, err := Load(e.opts())
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Load = %v, %v; want *Error", r, err)
			}
			msg := err.Error()
			t.Log(msg)
			for _, w := range tt.want {
				if !regexp.MustCompile(w).MatchString(msg) {
					t.Errorf("error does not match %q:\n%s", w, msg)
				}
			}
			if !strings.Contains(msg, "ollm profile validate") {
				t.Errorf("error does not say what to run:\n%s", msg)
			}
		})
	}
}

func TestWorkspaceCannotTrustItself(t *testing.T) {
	e := newEnv(t)
	e.write("ws/ollm.cue", "hooks: trustWorkspace: true\n")
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if r.Profile.Hooks.TrustWorkspace {
		t.Error("workspace set trustWorkspace for itself")
	}
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message, "cannot trust itself") || !strings.Contains(r.Problems[0].Pos, "ollm.cue:1:8") {
		t.Errorf("problems: %+v", r.Problems)
	}
	// From the user profile it is honoured.
	e.write("home/profile.cue", "hooks: trustWorkspace: true\n")
	r, err = Load(e.opts())
	if err != nil || !r.Profile.Hooks.TrustWorkspace {
		t.Errorf("user trustWorkspace: %v %v", err, r.Profile.Hooks.TrustWorkspace)
	}
}

// A team profile's values and rules cannot be dropped by a lower layer.
func TestTeamLayer(t *testing.T) {
	e := newEnv(t)
	team := e.write("store/team/ollm.cue", "policy: rules: [{tool: \"shell\", action: \"deny\", when: {arg: \"$program\", equals: \"rm\"}}]\nmodel: name: \"team-model\"\n")
	e.write("ws/ollm.cue", "policy: rules: [{tool: \"*\", action: \"allow\"}]\n")
	o := e.opts()
	o.Teams = []TeamFile{{Name: "team", File: team, Hash: "h1:x"}}
	r, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	// After the builtin read-only rule: the team's, then the workspace's.
	if len(r.Profile.Policy.Rules) != 3 || r.Profile.Policy.Rules[1].Action != "deny" || r.RuleScopes[1] != schema.ScopeStore {
		t.Errorf("rules: %+v %v", r.Profile.Policy.Rules, r.RuleScopes)
	}
	e.write("ws/ollm.cue", "model: name: \"mine\"\n")
	if _, err := Load(o); err == nil || !strings.Contains(err.Error(), `conflicting values "mine" and "team-model"`) && !strings.Contains(err.Error(), `conflicting values "team-model" and "mine"`) {
		t.Errorf("workspace replaced the team's model: %v", err)
	}
}

func TestModeScopes(t *testing.T) {
	e := newEnv(t)
	e.write("home/profile.cue", "policy: mode: \"yolo\"\n")
	e.write("ws/ollm.cue", "policy: defaultAction: \"allow\"\n")
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if r.ModeScope != schema.ScopeUser || r.DefaultActionScope != schema.ScopeWorkspace {
		t.Errorf("ModeScope %q DefaultActionScope %q", r.ModeScope, r.DefaultActionScope)
	}
}

// Unreadable inputs are errors naming the file (a directory where a file
// should be stands in for a permission error, which root does not get).
func TestUnreadableInputs(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(e.ws.Profile(), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Load(e.opts())
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), e.ws.Profile()+": cannot read profile") {
		t.Errorf("profile that is a directory: %v", err)
	}
	e2 := newEnv(t)
	if err := os.MkdirAll(filepath.Join(e2.home.Extensions(), "odd", "manifest.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	e2.write("home/extensions/fine/manifest.json", manifestJSON("fine", ""))
	r, err := Load(e2.opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Extensions) != 1 || !strings.Contains(problemsText(r.Problems), "error odd  cannot read manifest") {
		t.Errorf("extensions %+v problems %s", r.Extensions, problemsText(r.Problems))
	}
}
