package policy

import (
	"encoding/json"
	"testing"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

var (
	readFacts   = Facts{Name: "read_file", Kind: tool.KindRead}
	grepFacts   = Facts{Name: "grep", Kind: tool.KindSearch}
	writeFacts  = Facts{Name: "write_file", Kind: tool.KindEdit}
	shellFacts  = Facts{Name: "shell", Kind: tool.KindExecute}
	todoFacts   = Facts{Name: "write_todos", Kind: tool.KindThink}
	issueFacts  = Facts{Name: "github:create_issue", Kind: tool.KindOther, Annotations: tool.Annotations{Server: "github"}}
	searchFacts = Facts{Name: "github:search", Kind: tool.KindOther, Annotations: tool.Annotations{Server: "github", ReadOnly: ptr(true)}}
)

func ptr[T any](v T) *T { return &v }

func R(toolPat, action string, when *schema.Condition) schema.PolicyRule {
	return schema.PolicyRule{Tool: toolPat, Action: action, When: when}
}

func named(name string, r schema.PolicyRule) schema.PolicyRule { r.Name = name; return r }

func arg(name string) *schema.Condition { return &schema.Condition{Arg: name} }

func eq(a string, v any) *schema.Condition { c := arg(a); c.Equals = v; return c }

type decideCase struct {
	name     string
	def      string // default action; "" = ask
	mode     string
	rules    []schema.PolicyRule
	facts    Facts
	args     string
	want     Action
	wantRule int // index of the deciding rule; -1 = none
}

func runDecide(t *testing.T, tests []decideCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(schema.Policy{DefaultAction: tc.def, Mode: tc.mode, Rules: tc.rules}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			d, err := p.DecideJSON(tc.facts, json.RawMessage(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			got := -1
			if d.Rule != nil {
				got = d.Rule.Index
			}
			if d.Action != tc.want || got != tc.wantRule {
				t.Errorf("got %s by rule %d, want %s by rule %d\nreason: %s", d.Action, got, tc.want, tc.wantRule, d.Reason)
			}
			if d.Reason == "" {
				t.Error("decision has no reason")
			}
		})
	}
}

// Requirement 7 of seed 004, criteria 1-6.
func TestDecideSeedCriteria(t *testing.T) {
	runDecide(t, []decideCase{
		{name: "7.1 allow permits without confirmation", rules: []schema.PolicyRule{R("read_file", "allow", nil)},
			facts: readFacts, args: `{"path":"a"}`, want: Allow, wantRule: 0},
		{name: "7.2 deny blocks", def: "allow", rules: []schema.PolicyRule{R("write_file", "deny", nil)},
			facts: writeFacts, args: `{"path":"a"}`, want: Deny, wantRule: 0},
		{name: "7.3 ask asks", def: "allow", rules: []schema.PolicyRule{R("shell", "ask", nil)},
			facts: shellFacts, args: `{"command":"ls"}`, want: Ask, wantRule: 0},
		{name: "7.4 tool rule before the * default", rules: []schema.PolicyRule{R("*", "deny", nil), R("read_file", "allow", nil)},
			facts: readFacts, args: `{}`, want: Allow, wantRule: 1},
		{name: "7.4 * applies to other tools", rules: []schema.PolicyRule{R("*", "deny", nil), R("read_file", "allow", nil)},
			facts: writeFacts, args: `{}`, want: Deny, wantRule: 0},
		{name: "7.5 no rule: default ask", rules: []schema.PolicyRule{R("grep", "allow", nil)},
			facts: readFacts, args: `{}`, want: Ask, wantRule: -1},
		{name: "7.5 no rule: default allow", def: "allow", facts: writeFacts, args: `{}`, want: Allow, wantRule: -1},
		{name: "7.5 no rule: default deny", def: "deny", facts: readFacts, args: `{}`, want: Deny, wantRule: -1},
		{name: "7.6 condition true", def: "allow", rules: []schema.PolicyRule{R("write_file", "deny", &schema.Condition{Arg: "path", Glob: "**/.env"})},
			facts: writeFacts, args: `{"path":"app/.env"}`, want: Deny, wantRule: 0},
		{name: "7.6 condition false", def: "allow", rules: []schema.PolicyRule{R("write_file", "deny", &schema.Condition{Arg: "path", Glob: "**/.env"})},
			facts: writeFacts, args: `{"path":"app/main.go"}`, want: Allow, wantRule: -1},
		{name: "7.6 condition on a missing argument is false", def: "allow", rules: []schema.PolicyRule{R("write_file", "deny", eq("mode", "x"))},
			facts: writeFacts, args: `{"path":"a"}`, want: Allow, wantRule: -1},
	})
}

func TestDecidePrecedence(t *testing.T) {
	runDecide(t, []decideCase{
		{name: "deny over ask over allow at equal specificity", rules: []schema.PolicyRule{
			R("shell", "allow", nil), R("shell", "deny", nil), R("shell", "ask", nil)},
			facts: shellFacts, args: `{"command":"ls"}`, want: Deny, wantRule: 1},
		{name: "ask over allow", def: "deny", rules: []schema.PolicyRule{R("read_file", "allow", nil), R("read_file", "ask", nil)},
			facts: readFacts, args: `{}`, want: Ask, wantRule: 1},
		{name: "exact name beats glob", rules: []schema.PolicyRule{R("read_*", "deny", nil), R("read_file", "allow", nil)},
			facts: readFacts, args: `{}`, want: Allow, wantRule: 1},
		{name: "longer glob beats shorter", rules: []schema.PolicyRule{R("*", "deny", nil), R("read_*", "allow", nil)},
			facts: readFacts, args: `{}`, want: Allow, wantRule: 1},
		{name: "equal rules: the earlier wins", rules: []schema.PolicyRule{R("grep", "allow", nil), R("grep", "allow", nil)},
			facts: grepFacts, args: `{}`, want: Allow, wantRule: 0},
		{name: "conditional allow does not beat unconditional deny", rules: []schema.PolicyRule{
			R("shell", "deny", nil), R("shell", "allow", eq("$program", "ls"))},
			facts: shellFacts, args: `{"command":"ls"}`, want: Deny, wantRule: 0},
		{name: "exceptions go below a wildcard", rules: []schema.PolicyRule{
			R("*", "deny", nil), R("shell", "allow", eq("$program", "ls"))},
			facts: shellFacts, args: `{"command":"ls"}`, want: Allow, wantRule: 1},
	})
}

func TestDecideMCP(t *testing.T) {
	runDecide(t, []decideCase{
		{name: "mcp:github:* matches the server's tools", rules: []schema.PolicyRule{R("mcp:github:*", "allow", nil)},
			facts: issueFacts, args: `{}`, want: Allow, wantRule: 0},
		{name: "github:* matches by name", rules: []schema.PolicyRule{R("github:*", "deny", nil)},
			facts: issueFacts, args: `{}`, want: Deny, wantRule: 0},
		{name: "mcp:* matches every MCP tool", def: "allow", rules: []schema.PolicyRule{R("mcp:*", "ask", nil)},
			facts: issueFacts, args: `{}`, want: Ask, wantRule: 0},
		{name: "mcp:* does not match built-in tools", def: "allow", rules: []schema.PolicyRule{R("mcp:*", "deny", nil)},
			facts: readFacts, args: `{}`, want: Allow, wantRule: -1},
		{name: "a namespaced name is an MCP tool even without facts", rules: []schema.PolicyRule{R("mcp:gitlab:*", "allow", nil)},
			facts: Facts{Name: "gitlab:merge"}, args: `{}`, want: Allow, wantRule: 0},
		{name: "mcp:github:* is more specific than mcp:*", rules: []schema.PolicyRule{R("mcp:*", "deny", nil), R("mcp:github:*", "allow", nil)},
			facts: issueFacts, args: `{}`, want: Allow, wantRule: 1},
		{name: "exact MCP name beats server glob", rules: []schema.PolicyRule{R("mcp:github:*", "allow", nil), R("github:create_issue", "ask", nil)},
			facts: issueFacts, args: `{}`, want: Ask, wantRule: 1},
		{name: "other server not matched", def: "deny", rules: []schema.PolicyRule{R("mcp:github:*", "allow", nil)},
			facts: Facts{Name: "jira:create", Annotations: tool.Annotations{Server: "jira"}}, args: `{}`, want: Deny, wantRule: -1},
		{name: "$server condition", def: "deny", rules: []schema.PolicyRule{R("*", "allow", eq("$server", "github"))},
			facts: issueFacts, args: `{}`, want: Allow, wantRule: 0},
	})
}

func TestDecideModes(t *testing.T) {
	denyEnv := R("write_file", "deny", &schema.Condition{Arg: "path", Glob: "**/.env"})
	askWrite := R("write_file", "ask", nil)
	runDecide(t, []decideCase{
		{name: "auto_edit: edits run without asking", mode: "auto_edit", rules: []schema.PolicyRule{askWrite},
			facts: writeFacts, args: `{"path":"a.go"}`, want: Allow, wantRule: 0},
		{name: "auto_edit: default ask for an edit becomes allow", mode: "auto_edit",
			facts: writeFacts, args: `{"path":"a.go"}`, want: Allow, wantRule: -1},
		{name: "auto_edit: deny still holds", mode: "auto_edit", rules: []schema.PolicyRule{askWrite, denyEnv},
			facts: writeFacts, args: `{"path":".env"}`, want: Deny, wantRule: 1},
		{name: "auto_edit: shell still asks", mode: "auto_edit",
			facts: shellFacts, args: `{"command":"ls"}`, want: Ask, wantRule: -1},
		{name: "plan: write denied even if allowed", mode: "plan", rules: []schema.PolicyRule{R("*", "allow", nil)},
			facts: writeFacts, args: `{}`, want: Deny, wantRule: -1},
		{name: "plan: shell denied", mode: "plan", rules: []schema.PolicyRule{R("shell", "allow", nil)},
			facts: shellFacts, args: `{"command":"ls"}`, want: Deny, wantRule: -1},
		{name: "plan: think tools are not read-only", mode: "plan", def: "allow",
			facts: todoFacts, args: `{}`, want: Deny, wantRule: -1},
		{name: "plan: read-only follows the rules", mode: "plan", rules: []schema.PolicyRule{R("read_file", "allow", nil)},
			facts: readFacts, args: `{}`, want: Allow, wantRule: 0},
		{name: "plan: read-only still asks by default", mode: "plan",
			facts: grepFacts, args: `{}`, want: Ask, wantRule: -1},
		{name: "plan: read-only still denied by a rule", mode: "plan", rules: []schema.PolicyRule{R("read_file", "deny", nil)},
			facts: readFacts, args: `{}`, want: Deny, wantRule: 0},
		{name: "plan: MCP readOnlyHint counts", mode: "plan", def: "allow",
			facts: searchFacts, args: `{}`, want: Allow, wantRule: -1},
		{name: "plan: MCP tool without hints is denied", mode: "plan", def: "allow",
			facts: issueFacts, args: `{}`, want: Deny, wantRule: -1},
		{name: "yolo: ask becomes allow", mode: "yolo", rules: []schema.PolicyRule{R("shell", "ask", nil)},
			facts: shellFacts, args: `{"command":"ls"}`, want: Allow, wantRule: -1},
		{name: "yolo: default deny becomes allow", mode: "yolo", def: "deny",
			facts: writeFacts, args: `{}`, want: Allow, wantRule: -1},
		{name: "yolo: deny rule holds", mode: "yolo", rules: []schema.PolicyRule{denyEnv},
			facts: writeFacts, args: `{"path":".env"}`, want: Deny, wantRule: 0},
		{name: "yolo: deny rule holds in a compound command", mode: "yolo", rules: []schema.PolicyRule{R("shell", "deny", eq("$program", "rm"))},
			facts: shellFacts, args: `{"command":"ls && rm -rf /"}`, want: Deny, wantRule: 0},
		{name: "yolo: a deny that might match refuses", mode: "yolo", rules: []schema.PolicyRule{R("shell", "deny", eq("$program", "rm"))},
			facts: shellFacts, args: `{"command":"$X -rf /"}`, want: Deny, wantRule: 0},
		{name: "yolo: a more specific allow beats a wildcard deny", mode: "yolo", rules: []schema.PolicyRule{R("*", "deny", nil), R("grep", "allow", nil)},
			facts: grepFacts, args: `{}`, want: Allow, wantRule: 1},
	})
}

// One compiled Policy serves many goroutines (run with -race).
func TestDecideConcurrent(t *testing.T) {
	p := MustCompile(schema.Policy{Rules: []schema.PolicyRule{R("shell", "deny", eq("$program", "rm")), R("read_*", "allow", nil)}}, Options{})
	done := make(chan struct{})
	for i := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for j := range 200 {
				name := []string{"read_file", "read_many_files", "shell", "x"}[(i+j)%4]
				d := p.Decide(Facts{Name: name}, map[string]any{"command": "ls && rm x"})
				want := map[string]Action{"read_file": Allow, "read_many_files": Allow, "shell": Deny, "x": Ask}[name]
				if d.Action != want {
					t.Errorf("%s: %s", name, d.Action)
					return
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
}

// policyNamedTool is a tool the model knows as "create_issue" that the
// policy must judge as "github:create_issue", as MCP tools are.
type policyNamedTool struct{ tool.Tool }

func (policyNamedTool) Name() string                  { return "create_issue" }
func (policyNamedTool) Kind() tool.Kind               { return tool.KindOther }
func (policyNamedTool) PolicyName() string            { return "github:create_issue" }
func (policyNamedTool) Annotations() tool.Annotations { return tool.Annotations{Server: "github"} }

func TestFactsOfUsesThePolicyName(t *testing.T) {
	f := FactsOf(policyNamedTool{})
	if f.Name != "github:create_issue" || f.Annotations.Server != "github" {
		t.Fatalf("facts = %+v", f)
	}
	p, err := Compile(schema.Policy{DefaultAction: "allow", Mode: "default",
		Rules: []schema.PolicyRule{R("mcp:github:*", "deny", nil)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Decide(f, map[string]any{}); d.Action != Deny {
		t.Errorf("mcp:github:* did not match the tool the model calls create_issue: %+v", d)
	}
}
