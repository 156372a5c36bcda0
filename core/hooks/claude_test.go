package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/schema"
)

func TestClaudeEventsWithoutEquivalent(t *testing.T) {
	for _, name := range ClaudeOnlyEvents() {
		_, err := ParseEvent(name)
		if !errors.Is(err, ErrNoEquivalent) || !strings.Contains(err.Error(), name) {
			t.Errorf("ParseEvent(%s) = %v, want ErrNoEquivalent naming it", name, err)
		}
	}
	if e, err := ParseEvent("PermissionRequest"); err != nil || e != OnApprovalRequest {
		t.Errorf("PermissionRequest = %v, %v", e, err)
	}
	if _, err := ParseEvent("NoSuchEvent"); err == nil || errors.Is(err, ErrNoEquivalent) {
		t.Errorf("an unknown event must stay an error: %v", err)
	}
	// In a profile and in a manifest, such a hook is a warning and left out.
	r := &schema.Resolved{Profile: schema.Profile{Hooks: schema.Hooks{Definitions: []schema.Hook{
		{Name: "sub", Event: "TeammateIdle", Command: "true"},
		{Name: "ok", Event: "Stop", Command: "true"},
	}}}, HookScopes: []schema.Scope{schema.ScopeUser, schema.ScopeUser},
		Extensions: []schema.Extension{{Name: "p", Dir: "/x/p", Format: "claude", Scope: schema.ScopeUser,
			Manifest: schema.Manifest{Hooks: map[string][]schema.Hook{
				"Setup":             {{Name: "s", Command: "true"}},
				"PermissionRequest": {{Name: "perm", Command: "true"}},
			}}}}}
	reg, probs := FromResolved(r, BuildOptions{})
	if len(probs) != 2 {
		t.Fatalf("problems: %+v", probs)
	}
	for _, p := range probs {
		if p.Severity != "warning" || !strings.Contains(p.Message, "no ollm equivalent") {
			t.Errorf("problem: %+v", p)
		}
	}
	var names []string
	for _, h := range reg.All() {
		names = append(names, h.QualifiedName()+"@"+string(h.Event))
		if h.Extension == "p" && (!h.InProject || h.Def.Event != "PermissionRequest") {
			t.Errorf("plugin hook: InProject %v, declared %q", h.InProject, h.Def.Event)
		}
	}
	if got := strings.Join(names, " "); got != "ok@after_agent p/perm@on_approval_request" {
		t.Errorf("registered: %s", got)
	}
}

func claudeInputOf(t *testing.T, h *Hook, e Event, data map[string]any, s Session) map[string]any {
	t.Helper()
	b, err := BuildInput(h, e, data, nil, s, time.Unix(0, 0), 0)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestClaudeInputFields(t *testing.T) {
	h := &Hook{Name: "h", Def: schema.Hook{Dialect: DialectClaude}}
	s := sessionFor(WithSessionInfo(context.Background(), SessionInfo{Transcript: "/t/s.jsonl", PermissionMode: ClaudePermissionMode("yolo")}),
		Session{ID: "s1", Cwd: "/p"})
	in := claudeInputOf(t, h, SessionStart, map[string]any{"source": "resume"}, s)
	if in["hook_event_name"] != "SessionStart" || in["source"] != "resume" || in["transcript_path"] != "/t/s.jsonl" ||
		in["permission_mode"] != "bypassPermissions" || in["cwd"] != "/p" || in["session_id"] != "s1" {
		t.Errorf("SessionStart: %v", in)
	}
	in = claudeInputOf(t, h, SessionEnd, map[string]any{}, Session{ID: "s1"})
	if in["reason"] != "other" || in["permission_mode"] != "default" {
		t.Errorf("SessionEnd: %v", in)
	}
	in = claudeInputOf(t, h, AfterTool, map[string]any{"tool_name": "write_file", "args": map[string]any{"path": "a.txt"}, "result": "wrote a.txt", "tool_call_id": "call_1"}, s)
	resp, _ := in["tool_response"].(map[string]any)
	if in["tool_name"] != "Write" || in["tool_use_id"] != "call_1" || resp["filePath"] != "a.txt" || resp["success"] != true || resp["output"] != "wrote a.txt" {
		t.Errorf("PostToolUse: %v", in)
	}
	in = claudeInputOf(t, h, AfterTool, map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls"}, "result": "a\n"}, s)
	if resp, _ := in["tool_response"].(map[string]any); resp["stdout"] != "a\n" || resp["interrupted"] != false {
		t.Errorf("Bash response: %v", in)
	}
	approval := map[string]any{"operation": "tool_call", "requester": "shell", "tool_name": "shell", "args": map[string]any{"command": "make"}}
	in = claudeInputOf(t, &Hook{Def: schema.Hook{Dialect: DialectClaude, Event: "PermissionRequest"}}, OnApprovalRequest, approval, s)
	if in["hook_event_name"] != "PermissionRequest" || in["tool_name"] != "Bash" || in["tool_input"].(map[string]any)["command"] != "make" {
		t.Errorf("PermissionRequest: %v", in)
	}
	in = claudeInputOf(t, h, OnApprovalRequest, approval, s)
	if in["hook_event_name"] != "Notification" || in["notification_type"] != "permission_prompt" || in["message"] != "ollm needs your permission to use Bash" {
		t.Errorf("Notification: %v", in)
	}
	for mode, want := range map[string]string{"default": "default", "plan": "plan", "auto_edit": "acceptEdits", "yolo": "bypassPermissions"} {
		if got := ClaudePermissionMode(mode); got != want {
			t.Errorf("ClaudePermissionMode(%s) = %s", mode, got)
		}
	}
}

func TestClaudePermissionRequestDeny(t *testing.T) {
	v := Interpret(DialectClaude, OnApprovalRequest, RunOutput{Stdout: []byte(
		`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not on Fridays"}}}`)})
	if !v.Block || v.Reason != "not on Fridays" {
		t.Errorf("deny: %+v", v)
	}
	v = Interpret(DialectClaude, OnApprovalRequest, RunOutput{Stdout: []byte(
		`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}`)})
	if v.Block || v.Data["approved"] != true || v.Data["args"] != nil {
		t.Errorf("allow: %+v", v)
	}
	v = Interpret(DialectClaude, OnApprovalRequest, RunOutput{Stdout: []byte(
		`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "ls"}}}}`)})
	if v.Block || v.Data["approved"] != true || v.Data["args"].(map[string]any)["command"] != "ls" {
		t.Errorf("allow with updatedInput: %+v", v)
	}
}

// A Stop (Claude) or AfterAgent (Gemini) block makes the model go on with
// the reason; continue: false still stops; an ollm hook's block ends the
// run.
func TestAgentRetry(t *testing.T) {
	tests := []struct {
		name, dialect string
		out           RunOutput
		block         bool
		retry         any
	}{
		{"claude decision block", DialectClaude, RunOutput{Stdout: []byte(`{"decision": "block", "reason": "run the tests first"}`)}, false, "run the tests first"},
		{"claude exit 2", DialectClaude, RunOutput{ExitCode: 2, Stderr: []byte("lint fails\n")}, false, "lint fails"},
		{"gemini deny", DialectGemini, RunOutput{Stdout: []byte(`{"decision": "deny", "reason": "add a summary"}`)}, false, "add a summary"},
		{"claude continue false stops", DialectClaude, RunOutput{Stdout: []byte(`{"continue": false, "stopReason": "enough"}`)}, true, nil},
		{"claude approve", DialectClaude, RunOutput{Stdout: []byte(`{"decision": "approve"}`)}, false, nil},
		{"ollm block ends the run", DialectOllm, RunOutput{Stdout: []byte(`{"decision": "block", "reason": "no"}`)}, true, nil},
	}
	for _, tt := range tests {
		v := Interpret(tt.dialect, AfterAgent, tt.out)
		if v.Block != tt.block || v.Data["retry"] != tt.retry {
			t.Errorf("%s: %+v", tt.name, v)
		}
	}
	if v := Interpret(DialectClaude, BeforeTool, RunOutput{Stdout: []byte(`{"decision": "block", "reason": "x"}`)}); !v.Block {
		t.Errorf("a PreToolUse block is still a block: %+v", v)
	}
}

// A plugin hook runs in the project directory, with its matcher on the
// approval request's tool.
func TestClaudePluginHookRunsInProject(t *testing.T) {
	project, ext := t.TempDir(), t.TempDir()
	out := filepath.Join(t.TempDir(), "pwd")
	h := &Hook{Name: "where", Event: OnApprovalRequest, Scope: schema.ScopeUser, Extension: "p", Dir: ext, InProject: true,
		Def: schema.Hook{Name: "where", Command: "pwd > " + out, Matcher: "Bash", Dialect: DialectClaude}}
	e := newEngine(t, Options{Session: Session{ID: "s", Cwd: project}}, h)
	if o := emit(t, e, OnApprovalRequest, map[string]any{"tool_name": "read_file"}); len(o.Results) != 0 {
		t.Fatalf("the matcher did not keep the hook off read_file: %+v", o)
	}
	emit(t, e, OnApprovalRequest, map[string]any{"tool_name": "shell"})
	got, err := os.ReadFile(out)
	if err != nil || strings.TrimSpace(string(got)) != project {
		t.Errorf("ran in %q (%v), want %s", got, err, project)
	}
}

// PostToolUseFailure is after_tool for a failed call; a claude PostToolUse
// hook runs only when the call succeeded.
func TestClaudeToolOutcome(t *testing.T) {
	ok := &Hook{Name: "ok", Event: AfterTool, Def: schema.Hook{Event: "PostToolUse", Dialect: DialectClaude, Matcher: "Read"}}
	failed := &Hook{Name: "failed", Event: AfterTool, Def: schema.Hook{Event: "PostToolUseFailure", Dialect: DialectClaude, Matcher: "Read"}}
	plain := &Hook{Name: "plain", Event: AfterTool, Def: schema.Hook{Event: "after_tool"}}
	reg := NewRegistry(ok, failed, plain)
	names := func(data map[string]any) string {
		var out []string
		for _, h := range Plan(reg, AfterTool, data) {
			out = append(out, h.Name)
		}
		return strings.Join(out, " ")
	}
	if got := names(map[string]any{"tool_name": "read_file", "result": "x"}); got != "ok plain" {
		t.Errorf("success: %s", got)
	}
	fail := map[string]any{"tool_name": "read_file", "args": map[string]any{"path": "m"}, "result": "", "error": "not_found: m", "interrupted": false}
	if got := names(fail); got != "failed plain" {
		t.Errorf("failure: %s", got)
	}
	if got := names(map[string]any{"tool_name": "shell", "error": "exec: x"}); got != "plain" {
		t.Errorf("matcher: %s", got)
	}
	in := claudeInputOf(t, failed, AfterTool, fail, Session{ID: "s"})
	if in["hook_event_name"] != "PostToolUseFailure" || in["error"] != "not_found: m" || in["is_interrupt"] != false || in["tool_response"] != nil || in["tool_name"] != "Read" {
		t.Errorf("input: %v", in)
	}
}

// PreToolUse permissionDecision of several hooks: ask beats allow in
// either order, as in Claude Code.
func TestClaudePermissionDecisionPrecedence(t *testing.T) {
	ask := Verdict{Extra: map[string]any{"permissionDecision": "ask", "permissionDecisionReason": "look first"}}
	allow := Verdict{Extra: map[string]any{"permissionDecision": "allow", "permissionDecisionReason": "fine"}}
	for _, order := range [][]Verdict{{ask, allow}, {allow, ask}} {
		f := NewFold(nil)
		for i, v := range order {
			f.Apply(fmt.Sprint("h", i), false, v)
		}
		if f.Extra["permissionDecision"] != "ask" || f.Extra["permissionDecisionReason"] != "look first" {
			t.Errorf("%v: %v", order, f.Extra)
		}
	}
}
