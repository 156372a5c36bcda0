package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

// markHook is a claude-dialect guard that records each run in a marker
// file and blocks (exit 2).
func markHook(t *testing.T, name, ifRule string) (*Hook, string) {
	mark := filepath.Join(t.TempDir(), "ran")
	return &Hook{Name: name, Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Name: name, Dialect: DialectClaude,
		Command: `cat >> "$MARK"; echo blocked by guard >&2; exit 2`, If: ifRule, Env: map[string]string{"MARK": mark}}}, mark
}

func ran(mark string) bool { _, err := os.Stat(mark); return err == nil }

// A hook's `if` keeps its process from starting for calls the rule does
// not match; a shell call matches when any sub-command does.
func TestHookIfStartsNoProcessUnlessMatched(t *testing.T) {
	cases := []struct {
		rule string
		tool string
		args map[string]any
		mcp  string
		runs bool
	}{
		{"Bash(rm *)", "shell", map[string]any{"command": "rm -rf x"}, "", true},
		{"Bash(rm *)", "shell", map[string]any{"command": "ls"}, "", false},
		{"Bash(rm *)", "shell", map[string]any{"command": "ls && rm -rf y"}, "", true},
		{"Bash(rm *)", "read_file", map[string]any{"path": "rm x"}, "", false},
		{"Edit(src/**)", "edit_file", map[string]any{"path": "src/a.go"}, "", true},
		{"Edit(src/**)", "edit_file", map[string]any{"path": "docs/a.md"}, "", false},
		{"mcp__srv__echo", "srv__echo", map[string]any{}, "srv:echo", true},
		{"mcp__srv__echo", "srv__other", map[string]any{}, "srv:other", false},
		// a rule ollm cannot read errs towards running the guard
		{"Task(x)", "shell", map[string]any{"command": "ls"}, "", true},
	}
	for _, c := range cases {
		t.Run(c.rule+" "+c.tool+" "+c.mcp, func(t *testing.T) {
			h, mark := markHook(t, "guard", c.rule)
			e := newEngine(t, Options{}, h)
			data := map[string]any{"tool_name": c.tool, "args": c.args}
			if c.mcp != "" {
				data[MCPToolKey] = c.mcp
			}
			out := emit(t, e, BeforeTool, data)
			if ran(mark) != c.runs || out.Blocked != c.runs {
				t.Errorf("%s on %s %v: ran %v, blocked %v (%s); want %v", c.rule, c.tool, c.args, ran(mark), out.Blocked, out.Reason, c.runs)
			}
		})
	}
}

// On an event without a tool call a hook with `if` does not run, as in
// Claude Code.
func TestHookIfOnEventWithoutToolCall(t *testing.T) {
	h, mark := markHook(t, "stop", "Bash(rm *)")
	h.Event = AfterAgent
	e := newEngine(t, Options{}, h)
	emit(t, e, AfterAgent, map[string]any{"prompt": "rm -rf x", "response": "ok"})
	if ran(mark) {
		t.Error("the hook ran on an event with no tool call")
	}
}

// shell: bash runs a bash-only construct that sh -c would refuse; a shell
// that is not installed fails the hook naming hook and shell, and a
// failClosed guard blocks.
func TestHookShell(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed: ", err)
	}
	mark := filepath.Join(t.TempDir(), "out")
	h := &Hook{Name: "b", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Name: "b", Shell: "bash",
		Command: `x=abc; [[ $x == a* ]] && echo "${x^^}" > "$MARK"`, Env: map[string]string{"MARK": mark}}}
	e := newEngine(t, Options{}, h)
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
	if got, _ := os.ReadFile(mark); string(got) != "ABC\n" || out.Results[0].Failure != "" {
		t.Fatalf("bash hook wrote %q, result %+v", got, out.Results[0])
	}

	h2 := &Hook{Name: "z", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Name: "z", Shell: "zsh", FailClosed: true, Command: "true"}}
	e2 := newEngine(t, Options{}, h2)
	t.Setenv("PATH", t.TempDir()) // no shell at all on this PATH
	out = emit(t, e2, BeforeTool, map[string]any{"tool_name": "shell"})
	r := out.Results[0]
	if r.Failure != FailStart || !strings.Contains(r.Error, "hook z: shell zsh is not installed") || !out.Blocked {
		t.Errorf("missing shell: %+v blocked=%v", r, out.Blocked)
	}
}

// A prompt hook asks the model once; {"ok": false} blocks with the
// reason, {"ok": true} lets the call go on, and an error, a timeout or a
// reply that is not {ok, reason} is a failure (blocking only failClosed).
func TestPromptHook(t *testing.T) {
	var asked []string
	reply, replyErr := "", error(nil)
	ask := func(ctx context.Context, system, user string) (string, error) {
		asked = append(asked, user)
		if system != PromptHookSystem {
			t.Errorf("system prompt %q", system)
		}
		if reply == "hang" {
			<-ctx.Done()
			return "", ctx.Err()
		}
		return reply, replyErr
	}
	h := &Hook{Name: "judge", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Name: "judge", Dialect: DialectClaude,
		Prompt: "Is this safe? $ARGUMENTS Answer in JSON.", Timeout: 200}}
	e := newEngine(t, Options{AskModel: ask}, h)
	call := map[string]any{"tool_name": "shell", "args": map[string]any{"command": "rm -rf build"}}

	reply = "```json\n{\"ok\": false, \"reason\": \"deletes the build\"}\n```"
	out := emit(t, e, BeforeTool, call)
	if !out.Blocked || out.Reason != "deletes the build" {
		t.Errorf("ok false: blocked %v reason %q", out.Blocked, out.Reason)
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "Is this safe? {") || !strings.Contains(asked[0], `"tool_name":"Bash"`) ||
		!strings.Contains(asked[0], `"command":"rm -rf build"`) || !strings.HasSuffix(asked[0], "} Answer in JSON.") {
		t.Errorf("request: %q", asked)
	}

	reply = `{"ok": true, "reason": ""}`
	if out := emit(t, e, BeforeTool, call); out.Blocked || out.Results[0].Failure != "" {
		t.Errorf("ok true: %+v", out)
	}

	for _, c := range []struct {
		reply   string
		err     error
		failure string
	}{
		{"I think it is fine", nil, FailCrash},
		{`{"reason": "no ok"}`, nil, FailCrash},
		{"", errors.New("connection refused"), FailCrash},
		{"hang", nil, FailTimeout},
	} {
		reply, replyErr = c.reply, c.err
		for _, closed := range []bool{false, true} {
			h.Def.FailClosed = closed
			out := emit(t, e, BeforeTool, call)
			if r := out.Results[0]; r.Failure != c.failure || out.Blocked != closed {
				t.Errorf("reply %q err %v failClosed %v: %+v blocked %v", c.reply, c.err, closed, r, out.Blocked)
			}
		}
	}

	// Without $ARGUMENTS the input follows the prompt; with no model the
	// hook fails to start.
	h2 := &Hook{Name: "j2", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Name: "j2", Prompt: "Judge."}}
	asked, reply, replyErr = nil, `{"ok": true}`, nil
	emit(t, newEngine(t, Options{AskModel: ask}, h2), BeforeTool, call)
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "Judge.\n\n{") {
		t.Errorf("request without $ARGUMENTS: %q", asked)
	}
	if r := emit(t, newEngine(t, Options{}, h2), BeforeTool, call).Results[0]; r.Failure != FailStart {
		t.Errorf("no model: %+v", r)
	}
}

// Changing a hook's prompt, shell or if asks for approval again; a hook
// without them keeps the hash it had.
func TestLooseHashCoversNewFields(t *testing.T) {
	base := schema.Hook{Name: "h", Command: "true"}
	h0, _ := LooseHash(base, "")
	seen := map[string]bool{h0: true}
	for _, d := range []schema.Hook{{Name: "h", Command: "true", Shell: "bash"}, {Name: "h", Command: "true", If: "Bash(rm *)"}, {Name: "h", Prompt: "ok?"}, {Name: "h", Prompt: "ok now?"}} {
		h, err := LooseHash(d, "")
		if err != nil || seen[h] {
			t.Errorf("%+v: hash %s not new (%v)", d, h, err)
		}
		seen[h] = true
	}
	if h0 != "sha256:"+sha256Of("command\x00true\x00") {
		t.Errorf("the hash of a plain hook changed: %s", h0)
	}
}

func sha256Of(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
