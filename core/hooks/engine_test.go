package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollm/ollm/schema"
)

func emit(t *testing.T, e *Engine, ev Event, data map[string]any) Outcome {
	t.Helper()
	out, err := e.Emit(context.Background(), ev, data)
	if err != nil {
		t.Fatalf("Emit(%s): %v", ev, err)
	}
	return out
}

func TestEmitRunsHooksInOrderAndJoinsMessages(t *testing.T) {
	e := newEngine(t, Options{},
		userHook(t, "one", BeforeTool, "ok.sh", "first"),
		userHook(t, "py", BeforeTool, "echo_input.py"),
		userHook(t, "two", BeforeTool, "ok.sh", "second"),
	)
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls"}})
	if out.Blocked || len(out.Results) != 3 {
		t.Fatalf("outcome = %+v", out)
	}
	if out.SystemMessages[0] != "first" || out.SystemMessages[2] != "second" {
		t.Errorf("messages out of order: %q", out.SystemMessages)
	}
	var in Input
	if err := json.Unmarshal([]byte(out.SystemMessages[1]), &in); err != nil {
		t.Fatalf("python hook did not echo its input: %v", err)
	}
	if in.Event != BeforeTool || in.Data["tool_name"] != "shell" || in.Data["session_id"] != "sess-1" ||
		in.Metadata.HookName != "py" || in.Metadata.SessionID != "sess-1" || in.Metadata.ProtocolVersion != ProtocolVersion || in.Metadata.Timestamp == "" {
		t.Errorf("input = %+v", in)
	}
	if !strings.Contains(out.SystemMessage(), "first\n\n") {
		t.Errorf("SystemMessage() = %q", out.SystemMessage())
	}
}

func TestDisabledRunsNothing(t *testing.T) {
	order := filepath.Join(t.TempDir(), "order")
	t.Setenv("ORDER_FILE", order)
	e := New(NewRegistry(userHook(t, "a", BeforeAgent, "record.sh", "a")), Options{Enabled: false})
	defer e.Close()
	out := emit(t, e, BeforeAgent, map[string]any{"prompt": "hi"})
	if len(out.Results) != 0 || out.Data["prompt"] != "hi" {
		t.Fatalf("outcome = %+v", out)
	}
	if _, err := os.Stat(order); !os.IsNotExist(err) {
		t.Fatal("a hook ran with hooks.enabled false")
	}
}

func TestFailuresAreLoggedAndTheChainContinues(t *testing.T) {
	for _, tt := range []struct {
		script, failure string
	}{
		{"crash.sh", FailCrash},
		{"malformed.sh", FailMalformed},
		{"wrongtype.sh", FailMalformed},
		{"garbage.sh", FailMalformed},
		{"missing-script.sh", FailStart},
	} {
		t.Run(tt.script, func(t *testing.T) {
			e := newEngine(t, Options{}, userHook(t, "bad", BeforeTool, tt.script), userHook(t, "after", BeforeTool, "ok.sh", "after"))
			out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
			if out.Blocked {
				t.Fatalf("a fail-open hook blocked: %+v", out)
			}
			if got := out.Results[0].Failure; got != tt.failure {
				t.Errorf("failure = %q, want %q (%s)", got, tt.failure, out.Results[0].Error)
			}
			if len(out.SystemMessages) != 1 || out.SystemMessages[0] != "after" {
				t.Errorf("the next hook did not run: %+v", out)
			}
		})
	}
}

func TestFailClosedBlocks(t *testing.T) {
	pids := pidFile(t)
	for _, file := range []string{"crash.sh", "malformed.sh", "garbage.sh", "sleep.sh", "missing-script.sh"} {
		t.Run(file, func(t *testing.T) {
			h := userHook(t, "guard", BeforeTool, file)
			h.Def.FailClosed, h.Def.Timeout = true, 300
			e := newEngine(t, Options{}, h, userHook(t, "after", BeforeTool, "ok.sh", "after"))
			out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
			if !out.Blocked || out.BlockedBy != "guard" || !strings.Contains(out.Reason, "failed closed") {
				t.Fatalf("outcome = %+v", out)
			}
			if len(out.Results) != 1 {
				t.Errorf("the chain went on after a block: %+v", out.Results)
			}
		})
	}
	assertGone(t, pids())
}

func TestBlocking(t *testing.T) {
	for _, tt := range []struct{ script, reason string }{
		{"block.sh", "blocked by block.sh"},
		{"exit2.sh", "exit2.sh refuses this"},
		{"nonzero_json.sh", "Dangerous operation detected"},
	} {
		t.Run(tt.script, func(t *testing.T) {
			e := newEngine(t, Options{}, userHook(t, "b", BeforeTool, tt.script), userHook(t, "after", BeforeTool, "ok.sh"))
			out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
			if !out.Blocked || out.Reason != tt.reason || out.BlockedBy != "b" || len(out.Results) != 1 || !out.Results[0].Blocked {
				t.Fatalf("outcome = %+v", out)
			}
		})
	}
}

func TestEmptyAndWhitespaceOutputContinue(t *testing.T) {
	e := newEngine(t, Options{}, userHook(t, "empty", AfterTool, "empty.sh"), userHook(t, "ws", AfterTool, "whitespace.sh"))
	out := emit(t, e, AfterTool, map[string]any{"tool_name": "shell", "result": "r"})
	if out.Blocked || len(out.Results) != 2 || out.Results[0].Failure != "" || out.Results[1].Failure != "" || out.Data["result"] != "r" {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestHugeOutputIsCut(t *testing.T) {
	e := newEngine(t, Options{}, userHook(t, "huge", AfterTool, "huge.sh"), userHook(t, "after", AfterTool, "ok.sh", "after"))
	out := emit(t, e, AfterTool, map[string]any{"tool_name": "shell"})
	r := out.Results[0]
	if !r.Truncated || r.Failure != FailMalformed || !strings.Contains(r.Error, "cut") || out.Blocked {
		t.Fatalf("result = %+v", r)
	}
	if len(out.SystemMessages) != 1 {
		t.Errorf("the next hook did not run: %+v", out)
	}
}

func TestTimeoutKillsTheHook(t *testing.T) {
	pids := pidFile(t)
	slow := userHook(t, "slow", BeforeTool, "sleep.sh")
	slow.Def.Timeout = 200
	e := newEngine(t, Options{}, slow, userHook(t, "after", BeforeTool, "ok.sh", "after"))
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
	if out.Results[0].Failure != FailTimeout || out.Blocked || len(out.SystemMessages) != 1 {
		t.Fatalf("outcome = %+v", out)
	}
	assertGone(t, pids())
}

func TestGlobalTimeoutAndPerHookOverride(t *testing.T) {
	pids := pidFile(t)
	slow := userHook(t, "slow", BeforeTool, "sleep.sh") // takes hooks.timeout
	patient := &Hook{Name: "patient", Event: BeforeTool, Scope: schema.ScopeUser,
		Def: schema.Hook{Command: "sleep 0.5; echo '{\"systemMessage\":\"patient\"}'", Timeout: 20000}}
	e := newEngine(t, Options{Timeout: 200 * time.Millisecond}, slow, patient)
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
	if out.Results[0].Failure != FailTimeout {
		t.Errorf("the global timeout did not apply: %+v", out.Results[0])
	}
	if out.Results[1].Failure != "" || out.SystemMessage() != "patient" {
		t.Errorf("the per-hook timeout did not override the global one: %+v", out.Results[1])
	}
	assertGone(t, pids())
}

func TestTimeoutEscalatesToSIGKILLForTheWholeGroup(t *testing.T) {
	pids := pidFile(t)
	h := userHook(t, "trap", BeforeTool, "trap.sh")
	h.Def.Timeout = 300
	e := newEngine(t, Options{}, h)
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
	if out.Results[0].Failure != FailTimeout {
		t.Fatalf("result = %+v", out.Results[0])
	}
	if got := pids(); len(got) != 2 {
		t.Fatalf("trap.sh should record itself and its child, got %v", got)
	}
	assertGone(t, pids())
}

func TestChildHoldingStdoutDoesNotHang(t *testing.T) {
	pids := pidFile(t)
	e := newEngine(t, Options{}, userHook(t, "hold", SessionStart, "holdstdout.sh"))
	out := emit(t, e, SessionStart, map[string]any{})
	if out.SystemMessage() != "answered before my child finished" || out.Results[0].Failure != "" {
		t.Fatalf("outcome = %+v", out)
	}
	assertGone(t, pids())
}

func TestCancelledContextStopsTheHook(t *testing.T) {
	pids := pidFile(t)
	e := newEngine(t, Options{}, userHook(t, "slow", BeforeTool, "sleep.sh"), userHook(t, "next", BeforeTool, "ok.sh"))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(pids()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	out, err := e.Emit(ctx, BeforeTool, map[string]any{"tool_name": "shell"})
	if err == nil || len(out.Results) != 1 {
		t.Fatalf("Emit = %+v, %v; want the context error after one hook", out, err)
	}
	assertGone(t, pids())
}

func TestDataPropagatesThroughTheChain(t *testing.T) {
	e := newEngine(t, Options{},
		userHook(t, "a", BeforeTool, "propagate.py", "a"),
		userHook(t, "b", BeforeTool, "propagate.py", "b"),
		userHook(t, "c", BeforeTool, "propagate.py", "c"),
	)
	in := map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls"}}
	out := emit(t, e, BeforeTool, in)
	args := out.Data["args"].(map[string]any)
	if !reflect.DeepEqual(args["seen"], []any{"a", "b", "c"}) || args["command"] != "ls" {
		t.Errorf("args = %v", args)
	}
	want := []string{`a saw extra {}`, `b saw extra {"note_a": true}`, `c saw extra {"note_a": true, "note_b": true}`}
	if !reflect.DeepEqual(out.SystemMessages, want) {
		t.Errorf("messages = %q, want %q", out.SystemMessages, want)
	}
	if len(out.Extra) != 3 || in["args"].(map[string]any)["seen"] != nil {
		t.Errorf("extra = %v; caller data = %v", out.Extra, in)
	}
}

func TestEveryRewrite(t *testing.T) {
	tests := []struct {
		ev    Event
		data  map[string]any
		field string
		want  any
	}{
		{BeforeTool, map[string]any{"tool_name": "shell", "args": map[string]any{"command": "ls", "timeout": 5.0}},
			"args", map[string]any{"command": "echo GUARDED: ls", "timeout": 5.0}},
		{AfterTool, map[string]any{"tool_name": "shell", "result": "key=SECRET"}, "result", "key=[redacted]"},
		{BeforeAgent, map[string]any{"prompt": "list files"}, "prompt", "list files (answer briefly)"},
		{BeforeModel, map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}},
			"messages", []any{map[string]any{"role": "system", "content": "be terse"}, map[string]any{"role": "user", "content": "hi"}}},
		{AfterModel, map[string]any{"response": "the SECRET is out"}, "response", "the [redacted] is out"},
		{BeforeToolSelection, map[string]any{"available_tools": []any{"read_file", "shell", "write_file"}},
			"available_tools", []any{"read_file", "write_file"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.ev), func(t *testing.T) {
			e := newEngine(t, Options{}, userHook(t, "rw", tt.ev, "rewrite.js"))
			out := emit(t, e, tt.ev, tt.data)
			if out.Results[0].Failure != "" {
				t.Fatalf("result = %+v", out.Results[0])
			}
			if !reflect.DeepEqual(out.Data[tt.field], tt.want) {
				t.Errorf("%s = %#v, want %#v", tt.field, out.Data[tt.field], tt.want)
			}
		})
	}
}

func TestClaudeScriptsRunUnchanged(t *testing.T) {
	guard := userHook(t, "guard", BeforeTool, "claude_guard.sh")
	guard.Def.Dialect, guard.Def.Matcher = DialectClaude, "Bash"
	e := newEngine(t, Options{}, guard)
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "Bash", "args": map[string]any{"command": "rm -rf /"}})
	if !out.Blocked || out.Reason != "Blocked: rm -rf is not allowed (session sess-1)" {
		t.Fatalf("rm -rf: %+v", out)
	}
	out = emit(t, e, BeforeTool, map[string]any{"tool_name": "Bash", "args": map[string]any{"command": "ls"}})
	if out.Blocked || out.Results[0].Failure != "" {
		t.Fatalf("ls: %+v", out)
	}
	if out = emit(t, e, BeforeTool, map[string]any{"tool_name": "Read"}); len(out.Results) != 0 {
		t.Fatalf("the matcher did not keep the hook off Read: %+v", out)
	}
}

func TestClaudeJSONOutput(t *testing.T) {
	h := func(ev Event) *Hook {
		x := userHook(t, "cj-"+string(ev), ev, "claude_json.py")
		x.Def.Dialect = DialectClaude
		return x
	}
	cwd := t.TempDir()
	e := newEngine(t, Options{Session: Session{ID: "s", Cwd: cwd}}, h(BeforeTool), h(BeforeAgent), h(AfterTool), h(AfterAgent))
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "Write", "args": map[string]any{"file_path": "/p/.env"}})
	if !out.Blocked || out.Reason != "no .env edits" {
		t.Errorf("deny: %+v", out)
	}
	out = emit(t, e, BeforeTool, map[string]any{"tool_name": "Bash", "args": map[string]any{"command": "make"}})
	if out.Blocked || out.Data["args"].(map[string]any)["command"] != "timeout 10 make" || out.Extra["permissionDecision"] != "ask" {
		t.Errorf("updatedInput/ask: %+v", out)
	}
	out = emit(t, e, BeforeAgent, map[string]any{"prompt": "hi"})
	if out.SystemMessage() != "project dir is "+cwd {
		t.Errorf("additionalContext: %+v", out)
	}
	out = emit(t, e, AfterTool, map[string]any{"tool_name": "Bash", "result": "weird"})
	if !out.Blocked || out.Reason != "tool output looked wrong: weird" {
		t.Errorf("decision block: %+v", out)
	}
	out = emit(t, e, AfterAgent, map[string]any{"response": "done"})
	if out.Blocked || out.Results[0].Failure != FailMalformed {
		t.Errorf("plain stdout on Stop: %+v", out)
	}
}

func TestStderrGoesToTheExtensionLog(t *testing.T) {
	logs := t.TempDir()
	h := userHook(t, "s", AfterAgent, "stderr.sh", "ext-hook")
	h.Extension = "myext"
	e := newEngine(t, Options{LogDir: logs}, h, userHook(t, "quiet", AfterAgent, "ok.sh"))
	emit(t, e, AfterAgent, map[string]any{})
	data, err := os.ReadFile(LogPath(logs, "myext"))
	if err != nil || !strings.Contains(string(data), "stderr line from ext-hook") || !strings.Contains(string(data), "hook myext/s event after_agent") {
		t.Fatalf("log = %q, %v", data, err)
	}
	if _, err := os.Stat(LogPath(logs, "")); !os.IsNotExist(err) {
		t.Errorf("a quiet hook created a log file")
	}
}

func TestEnvironmentAndWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	h := userHook(t, "env", BeforeModel, "env.sh")
	h.Extension, h.Dir = "ext", dir
	h.Env = map[string]string{"MY_SETTING": "from-settings"}
	h.Def.Env = map[string]string{"HOOK_OWN": "own"}
	e := newEngine(t, Options{}, h)
	out := emit(t, e, BeforeModel, map[string]any{})
	want := "before_model from-settings own " + dir
	if out.SystemMessage() != want {
		t.Fatalf("got %q, want %q", out.SystemMessage(), want)
	}
}

func TestAsyncObserversDoNotHoldTheEvent(t *testing.T) {
	order := filepath.Join(t.TempDir(), "order")
	t.Setenv("ORDER_FILE", order)
	obs := userHook(t, "observer", AfterTool, "async_wait.sh")
	obs.Def.Async, obs.Def.Timeout = true, 60000
	var mu sync.Mutex
	var got []Result
	e := newEngine(t, Options{OnAsync: func(r Result) { mu.Lock(); got = append(got, r); mu.Unlock() }},
		obs, userHook(t, "sync", AfterTool, "record.sh", "sync"))
	out := emit(t, e, AfterTool, map[string]any{"tool_name": "x"})
	if !out.Results[0].Async || out.Results[1].Failure != "" {
		t.Fatalf("outcome = %+v", out)
	}
	e.Wait()
	data, _ := os.ReadFile(order)
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(strings.Fields(string(data)), " ") != "sync observer" || len(got) != 1 || got[0].Failure != "" {
		t.Fatalf("observer: file %q, results %+v", data, got)
	}
}

// Claude hooks see ollm's built-in tools under Claude's names and argument
// keys, may match on either name, and their updatedInput comes back in
// ollm's keys.
func TestClaudeToolNamesMapped(t *testing.T) {
	guard := userHook(t, "guard", BeforeTool, "claude_guard.sh")
	guard.Def.Dialect, guard.Def.Matcher = DialectClaude, "Bash"
	e := newEngine(t, Options{}, guard)
	out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell", "args": map[string]any{"command": "rm -rf /"}})
	if !out.Blocked || !strings.HasPrefix(out.Reason, "Blocked: rm -rf") {
		t.Fatalf("a Bash matcher did not catch the shell tool: %+v", out)
	}
	if out = emit(t, e, BeforeTool, map[string]any{"tool_name": "read_file", "args": map[string]any{"path": "a"}}); len(out.Results) != 0 {
		t.Fatalf("the Bash matcher ran on read_file: %+v", out)
	}

	x := userHook(t, "cj", BeforeTool, "claude_json.py")
	x.Def.Dialect = DialectClaude
	e = newEngine(t, Options{}, x)
	out = emit(t, e, BeforeTool, map[string]any{"tool_name": "write_file", "args": map[string]any{"path": "/p/.env", "content": "k"}})
	if !out.Blocked || out.Reason != "no .env edits" {
		t.Errorf("write_file path did not arrive as file_path: %+v", out)
	}
	out = emit(t, e, BeforeTool, map[string]any{"tool_name": "edit_file", "args": map[string]any{"path": "main.go"}})
	args, _ := out.Data["args"].(map[string]any)
	if args["path"] != "main.go" || args["file_path"] != nil || args["command"] != "timeout 10 " {
		t.Errorf("updatedInput not mapped back to ollm's keys: %#v", args)
	}
}
