package hooks

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

func mkExt(name string, scope schema.Scope, dir string, hooks map[string][]schema.Hook) schema.Extension {
	return schema.Extension{Name: name, Scope: scope, Dir: dir, Manifest: schema.Manifest{Name: name, Hooks: hooks}}
}

func recordHook(name string) schema.Hook {
	return schema.Hook{Name: name, Command: "bash", Args: []string{"%TD%/record.sh", name}}
}

// resolvedFixture mixes every source, listed out of order.
func resolvedFixture(td string) *schema.Resolved {
	fix := func(h schema.Hook, ev string) schema.Hook {
		h.Args[0] = strings.ReplaceAll(h.Args[0], "%TD%", td)
		h.Event = ev
		return h
	}
	bt := func(n string) schema.Hook { return fix(recordHook(n), "PreToolUse") }
	f := false
	return &schema.Resolved{
		Workspace: "/ws",
		Profile: schema.Profile{Hooks: schema.Hooks{
			Enabled:     true,
			Definitions: []schema.Hook{bt("ws-profile"), bt("user-profile"), bt("builtin")},
			Extensions:  map[string]schema.HookOverride{"off": {Enabled: &f}, "partial": {Disable: []string{"partial-b"}, Timeout: 1234}},
		}},
		HookScopes: []schema.Scope{schema.ScopeWorkspace, schema.ScopeUser, schema.ScopeBuiltin},
		Extensions: []schema.Extension{
			mkExt("wsext", schema.ScopeWorkspace, "/ws/.ollm/extensions/wsext", map[string][]schema.Hook{"before_tool": {bt("wsext-1")}}),
			mkExt("userext", schema.ScopeUser, "/home/.ollm/extensions/userext", map[string][]schema.Hook{
				"pre-tool-call": {bt("userext-1"), bt("userext-2")}, "after_tool": {fix(recordHook("userext-after"), "")}}),
			mkExt("flagext", schema.ScopeFlag, "/tmp/flagext", map[string][]schema.Hook{"before_tool": {bt("flagext-1")}}),
			mkExt("off", schema.ScopeUser, "/home/.ollm/extensions/off", map[string][]schema.Hook{"before_tool": {bt("off-1")}}),
			mkExt("partial", schema.ScopeStore, "/home/.ollm/store/h1-partial", map[string][]schema.Hook{"before_tool": {bt("partial-a"), bt("partial-b")}}),
		},
	}
}

func TestFromResolvedOrder(t *testing.T) {
	reg, probs := FromResolved(resolvedFixture("/td"), BuildOptions{Home: "/home/.ollm", ExtEnv: map[string]map[string]string{"userext": {"K": "v"}}})
	if len(probs) != 0 {
		t.Fatalf("problems: %+v", probs)
	}
	var got []string
	for _, h := range reg.ForEvent(BeforeTool) {
		got = append(got, h.Name)
	}
	want := []string{"builtin", "user-profile", "userext-1", "userext-2", "partial-a", "ws-profile", "wsext-1", "flagext-1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order = %v\nwant    %v", got, want)
	}
	byName := map[string]*Hook{}
	for _, h := range reg.All() {
		byName[h.Name] = h
	}
	if h := byName["userext-1"]; h.Dir != "/home/.ollm/extensions/userext" || h.Root != "/home/.ollm/extensions" || h.Env["K"] != "v" || h.Scope != schema.ScopeUser {
		t.Errorf("userext-1 = %+v", h)
	}
	if h := byName["ws-profile"]; h.Dir != "/ws" || h.Root != "/ws" || h.Scope != schema.ScopeWorkspace {
		t.Errorf("ws-profile = %+v", h)
	}
	if h := byName["user-profile"]; h.Root != "/home/.ollm" || h.Dir != "" {
		t.Errorf("user-profile = %+v", h)
	}
	if byName["partial-a"].Def.Timeout != 1234 || byName["userext-after"].Event != AfterTool {
		t.Errorf("override or event lost: %+v %+v", byName["partial-a"], byName["userext-after"])
	}
}

// The order FromResolved gives is the order the processes run in.
func TestRegistrationOrderIsExecutionOrder(t *testing.T) {
	order := filepath.Join(t.TempDir(), "order")
	t.Setenv("ORDER_FILE", order)
	td, _ := filepath.Abs("testdata")
	reg, _ := FromResolved(resolvedFixture(td), BuildOptions{Home: "/home/.ollm"})
	for _, h := range reg.All() {
		h.Dir, h.Scope = "", schema.ScopeUser // run them all here, trusted
		passTestEnv(h)
	}
	e := New(reg, Options{Enabled: true, Session: Session{ID: "s", Cwd: t.TempDir()}})
	defer e.Close()
	emit(t, e, BeforeTool, map[string]any{"tool_name": "x"})
	data, _ := os.ReadFile(order)
	want := "builtin user-profile userext-1 userext-2 partial-a ws-profile wsext-1 flagext-1"
	if got := strings.Join(strings.Fields(string(data)), " "); got != want {
		t.Fatalf("ran %q\nwant %q", got, want)
	}
}

func TestFromResolvedReportsBadEvents(t *testing.T) {
	r := &schema.Resolved{Profile: schema.Profile{Hooks: schema.Hooks{Definitions: []schema.Hook{{Name: "x", Event: "before-tool", Command: "true"}}}},
		HookScopes: []schema.Scope{schema.ScopeUser}}
	reg, probs := FromResolved(r, BuildOptions{})
	if len(reg.All()) != 0 || len(probs) != 1 || !strings.Contains(probs[0].Message, "before-tool") {
		t.Fatalf("registry %v, problems %+v", reg.All(), probs)
	}
}
