package hooks

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestInterpret(t *testing.T) {
	tests := []struct {
		name    string
		dialect string
		event   Event
		out     RunOutput
		want    Verdict
	}{
		{"empty output continues", "ollm", BeforeTool, RunOutput{}, Verdict{}},
		{"whitespace continues", "ollm", BeforeTool, RunOutput{Stdout: []byte(" \n\t\r\n")}, Verdict{}},
		{"continue false blocks", "ollm", BeforeTool, RunOutput{Stdout: []byte(`{"continue":false,"reason":"no"}`)},
			Verdict{Block: true, Reason: "no"}},
		{"allow false blocks with message as reason", "ollm", BeforeTool, RunOutput{Stdout: []byte(`{"allow":false,"message":"dangerous"}`)},
			Verdict{Block: true, Reason: "dangerous"}},
		{"stopReason", "ollm", BeforeTool, RunOutput{Stdout: []byte(`{"continue":false,"stopReason":"stop"}`)},
			Verdict{Block: true, Reason: "stop"}},
		{"block without reason", "ollm", BeforeTool, RunOutput{Stdout: []byte(`{"continue":false}`)},
			Verdict{Block: true, Reason: "blocked by hook"}},
		{"message alias of systemMessage", "ollm", BeforeTool, RunOutput{Stdout: []byte(`{"allow":true,"message":"ok"}`)},
			Verdict{SystemMessage: "ok"}},
		{"systemMessage and data and extra", "ollm", BeforeTool,
			RunOutput{Stdout: []byte(`{"systemMessage":"m","data":{"args":{"a":1}},"metadata":{"k":"v"}}`)},
			Verdict{SystemMessage: "m", Data: map[string]any{"args": map[string]any{"a": 1.0}}, Extra: map[string]any{"metadata": map[string]any{"k": "v"}}}},
		{"exit 2 blocks with stderr", "ollm", BeforeTool, RunOutput{ExitCode: 2, Stdout: []byte(`{"continue":true}`), Stderr: []byte("nope\n")},
			Verdict{Block: true, Reason: "nope"}},
		{"exit 2 without stderr", "claude", BeforeTool, RunOutput{ExitCode: 2}, Verdict{Block: true, Reason: "blocked by hook (exit status 2)"}},
		{"non-zero exit with valid output obeys output", "ollm", BeforeTool, RunOutput{ExitCode: 1, Stdout: []byte(`{"allow":false,"message":"x"}`)},
			Verdict{Block: true, Reason: "x"}},
		{"non-zero exit without output is a crash", "ollm", BeforeTool, RunOutput{ExitCode: 3, Stderr: []byte("boom\nmore")},
			Verdict{Failure: FailCrash, Detail: "exited with status 3: boom"}},
		{"malformed", "ollm", BeforeTool, RunOutput{Stdout: []byte(`{"continue": `)}, Verdict{Failure: FailMalformed}},
		{"array is malformed", "ollm", BeforeTool, RunOutput{Stdout: []byte(`[1,2]`)}, Verdict{Failure: FailMalformed}},
		{"null is malformed", "ollm", BeforeTool, RunOutput{Stdout: []byte(`null`)}, Verdict{Failure: FailMalformed}},
		{"wrong type is malformed", "ollm", BeforeTool, RunOutput{Stdout: []byte(`{"continue":"no"}`)}, Verdict{Failure: FailMalformed}},
		{"data not an object is malformed", "ollm", BeforeTool, RunOutput{Stdout: []byte(`{"data":[1]}`)}, Verdict{Failure: FailMalformed}},
		{"binary garbage", "ollm", BeforeTool, RunOutput{Stdout: []byte{0xff, 0xfe, 0x00, 0x01}}, Verdict{Failure: FailMalformed}},
		{"timeout", "ollm", BeforeTool, RunOutput{TimedOut: true, ExitCode: -1}, Verdict{Failure: FailTimeout, Detail: "timed out"}},
		{"cannot start", "ollm", BeforeTool, RunOutput{StartErr: errors.New("no such file")}, Verdict{Failure: FailStart, Detail: "no such file"}},
		{"claude decision block", "claude", AfterTool, RunOutput{Stdout: []byte(`{"decision":"block","reason":"bad output"}`)},
			Verdict{Block: true, Reason: "bad output"}},
		{"claude decision approve", "claude", BeforeTool, RunOutput{Stdout: []byte(`{"decision":"approve"}`)}, Verdict{}},
		{"claude permission deny", "claude", BeforeTool,
			RunOutput{Stdout: []byte(`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no .env"}}`)},
			Verdict{Block: true, Reason: "no .env"}},
		{"claude permission ask and updatedInput", "claude", BeforeTool,
			RunOutput{Stdout: []byte(`{"hookSpecificOutput":{"permissionDecision":"ask","updatedInput":{"command":"ls"}}}`)},
			Verdict{Data: map[string]any{"args": map[string]any{"command": "ls"}}, Extra: map[string]any{"permissionDecision": "ask"}}},
		{"top-level updatedInput", "claude", BeforeTool, RunOutput{Stdout: []byte(`{"updatedInput":{"x":1}}`)},
			Verdict{Data: map[string]any{"args": map[string]any{"x": 1.0}}}},
		{"updatedInput ignored outside before_tool", "claude", AfterTool, RunOutput{Stdout: []byte(`{"updatedInput":{"x":1}}`)}, Verdict{}},
		{"claude additionalContext", "claude", BeforeAgent,
			RunOutput{Stdout: []byte(`{"systemMessage":"warn","hookSpecificOutput":{"additionalContext":"ctx"}}`)},
			Verdict{SystemMessage: "warn\nctx"}},
		{"claude plain stdout on prompt adds context", "claude", BeforeAgent, RunOutput{Stdout: []byte("today is Monday\n")},
			Verdict{SystemMessage: "today is Monday"}},
		{"claude plain stdout on Stop is malformed", "claude", AfterAgent, RunOutput{Stdout: []byte("hello")}, Verdict{Failure: FailMalformed}},
		{"ollm plain stdout on prompt is malformed", "ollm", BeforeAgent, RunOutput{Stdout: []byte("hello")}, Verdict{Failure: FailMalformed}},
		{"gemini deny", "gemini", BeforeTool, RunOutput{Stdout: []byte(`{"decision":"deny","reason":"policy"}`)},
			Verdict{Block: true, Reason: "policy"}},
		{"gemini tool selection", "gemini", BeforeToolSelection,
			RunOutput{Stdout: []byte(`{"hookSpecificOutput":{"toolConfig":{"allowedFunctionNames":["read_file"]}}}`)},
			Verdict{Data: map[string]any{"available_tools": []any{"read_file"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Interpret(tt.dialect, tt.event, tt.out)
			if tt.want.Failure == FailMalformed && got.Failure == FailMalformed {
				return // the detail text is for people
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Interpret = %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestFold(t *testing.T) {
	type step struct {
		hook       string
		failClosed bool
		v          Verdict
	}
	tests := []struct {
		name      string
		data      map[string]any
		steps     []step
		wantStops []bool
		want      Fold
	}{
		{
			name:      "messages join in order, data merges, extra kept",
			data:      map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls"}},
			steps:     []step{{"a", false, Verdict{SystemMessage: "one", Extra: map[string]any{"x": 1}}}, {"b", false, Verdict{SystemMessage: "two", Data: map[string]any{"args": map[string]any{"command": "ls -l"}}}}},
			wantStops: []bool{false, false},
			want: Fold{Data: map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls -l"}},
				Extra: map[string]any{"x": 1}, Messages: []string{"one", "two"}},
		},
		{
			name:      "block stops the chain and names the hook",
			data:      map[string]any{},
			steps:     []step{{"a", false, Verdict{Block: true, Reason: "no", SystemMessage: "why"}}},
			wantStops: []bool{true},
			want:      Fold{Data: map[string]any{}, Messages: []string{"why"}, Blocked: true, Reason: "no", BlockedBy: "a"},
		},
		{
			name:      "failure is ignored when fail-open",
			data:      map[string]any{},
			steps:     []step{{"a", false, Verdict{Failure: FailTimeout, Detail: "timed out"}}},
			wantStops: []bool{false},
			want:      Fold{Data: map[string]any{}},
		},
		{
			name:      "failure blocks when fail-closed",
			data:      map[string]any{},
			steps:     []step{{"guard", true, Verdict{Failure: FailMalformed, Detail: "not JSON"}}},
			wantStops: []bool{true},
			want:      Fold{Data: map[string]any{}, Blocked: true, BlockedBy: "guard", Reason: "hook guard failed closed (malformed): not JSON"},
		},
		{
			name:      "available_tools only shrinks and keeps order",
			data:      map[string]any{"available_tools": []any{"a", map[string]any{"name": "b"}, map[string]any{"function": map[string]any{"name": "c"}}}},
			steps:     []step{{"f", false, Verdict{Data: map[string]any{"available_tools": []any{"c", "b", "invented"}}}}},
			wantStops: []bool{false},
			want:      Fold{Data: map[string]any{"available_tools": []any{map[string]any{"name": "b"}, map[string]any{"function": map[string]any{"name": "c"}}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFold(tt.data)
			for i, s := range tt.steps {
				if stop := f.Apply(s.hook, s.failClosed, s.v); stop != tt.wantStops[i] {
					t.Errorf("step %d: stop = %v, want %v", i, stop, tt.wantStops[i])
				}
			}
			if !reflect.DeepEqual(*f, tt.want) {
				t.Errorf("fold = %#v\nwant %#v", *f, tt.want)
			}
		})
	}
}

func TestFoldLeavesCallerDataAlone(t *testing.T) {
	data := map[string]any{"prompt": "hi"}
	f := NewFold(data)
	f.Apply("a", false, Verdict{Data: map[string]any{"prompt": "changed"}})
	if data["prompt"] != "hi" {
		t.Fatalf("caller's data changed: %v", data)
	}
	if f.SystemMessage() != "" || f.Data["prompt"] != "changed" {
		t.Fatalf("fold = %#v", f)
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		pattern, subject string
		want             bool
	}{
		{"", "shell", true},
		{"*", "shell", true},
		{"shell", "shell", true},
		{"shell", "shell2", false},
		{"Edit|Write", "Write", true},
		{"Edit|Write", "Read", false},
		{"Notebook.*", "NotebookEdit", true},
		{"mcp:*", "mcp:fs_read", true},
		{"mcp__memory__.*", "mcp__memory__create", true},
		{"read_*", "write_file", false},
		{"(", "(", true}, // invalid regex still matches exactly
		{"(", "x", false},
	}
	for _, tt := range tests {
		if got := Matches(tt.pattern, tt.subject); got != tt.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tt.pattern, tt.subject, got, tt.want)
		}
	}
}

func TestPlanAppliesMatchersOnlyWithASubject(t *testing.T) {
	h1 := &Hook{Name: "edit", Event: BeforeTool, Def: defWith("Edit|Write")}
	h2 := &Hook{Name: "all", Event: BeforeTool}
	h3 := &Hook{Name: "startup", Event: SessionStart, Def: defWith("startup")}
	h4 := &Hook{Name: "prompt", Event: BeforeAgent, Def: defWith("never")}
	reg := NewRegistry(h1, h2, h3, h4)
	names := func(hs []*Hook) string {
		var s []string
		for _, h := range hs {
			s = append(s, h.Name)
		}
		return strings.Join(s, ",")
	}
	for _, tt := range []struct {
		ev   Event
		data map[string]any
		want string
	}{
		{BeforeTool, map[string]any{"tool_name": "Write"}, "edit,all"},
		{BeforeTool, map[string]any{"tool_name": "shell"}, "all"},
		{SessionStart, map[string]any{"source": "resume"}, ""},
		{SessionStart, map[string]any{"source": "startup"}, "startup"},
		{BeforeAgent, map[string]any{"prompt": "x"}, "prompt"},
	} {
		if got := names(Plan(reg, tt.ev, tt.data)); got != tt.want {
			t.Errorf("Plan(%s, %v) = %q, want %q", tt.ev, tt.data, got, tt.want)
		}
	}
}

func TestParseEvent(t *testing.T) {
	for alias, want := range map[string]Event{
		"before_tool": BeforeTool, "pre-tool-call": BeforeTool, "PreToolUse": BeforeTool, "BeforeTool": BeforeTool,
		"post-tool-call": AfterTool, "UserPromptSubmit": BeforeAgent, "pre-execution": BeforeAgent,
		"Stop": AfterAgent, "on-session-start": SessionStart, "SessionEnd": SessionEnd, "PreCompact": OnContextOverflow,
		"on-git-commit": OnGitCommit, "custom": Custom, "BeforeToolSelection": BeforeToolSelection,
	} {
		got, err := ParseEvent(alias)
		if err != nil || got != want {
			t.Errorf("ParseEvent(%q) = %q, %v; want %q", alias, got, err, want)
		}
	}
	if _, err := ParseEvent("before-tool"); err == nil || !strings.Contains(err.Error(), "before_tool") {
		t.Errorf("unknown event error should list the events: %v", err)
	}
	for _, e := range Events {
		if _, ok := Fields[e]; !ok {
			t.Errorf("event %s has no field list", e)
		}
	}
}
