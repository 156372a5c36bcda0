package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/policy"
)

func TestSubmitStreamAndFinish(t *testing.T) {
	m, f := newModel(t)
	typeText(m, "explain the repo")
	send(m, key(tea.KeyEnter))
	if len(f.prompts) != 1 || f.prompts[0] != "explain the repo" {
		t.Fatalf("prompts = %q", f.prompts)
	}
	if !m.Busy() {
		t.Fatal("not busy after submit")
	}
	v := plain(m)
	mustContain(t, v, "> explain the repo", "working", "model test-model", "gen 3")

	send(m, ThinkingDelta{"let me look"}, ContentDelta{"The repo has "}, ContentDelta{"two parts.\n\nFirst, the"})
	v = plain(m)
	mustContain(t, v, "thinking: let me look", "The repo has two parts.", "First, the")
	send(m, ContentDelta{" core.\n"}, AssistantDone{}, TurnDone{Text: "x"})
	if m.Busy() {
		t.Fatal("still busy after TurnDone")
	}
	v = plain(m)
	mustContain(t, v, "First, the core.")
	mustNotContain(t, v, "working")
}

func TestAssistantRewriteReplacesStream(t *testing.T) {
	m, _ := newModel(t)
	send(m, ContentDelta{"secret token abc"}, AssistantDone{Text: "[redacted]"})
	v := plain(m)
	mustContain(t, v, "[redacted]")
	mustNotContain(t, v, "secret token")
}

func TestEnterWhileBusyDoesNotSubmit(t *testing.T) {
	m, f := newModel(t)
	typeText(m, "one")
	send(m, key(tea.KeyEnter))
	typeText(m, "two")
	send(m, key(tea.KeyEnter))
	if len(f.prompts) != 1 {
		t.Fatalf("prompts = %q", f.prompts)
	}
	mustContain(t, plain(m), "a turn is running")
}

func TestCtrlCCancelsTurnNotSession(t *testing.T) {
	m, f := newModel(t)
	typeText(m, "go")
	send(m, key(tea.KeyEnter), key(tea.KeyCtrlC))
	if f.cancels != 1 || m.Quitting() {
		t.Fatalf("cancels=%d quitting=%v", f.cancels, m.Quitting())
	}
	send(m, TurnDone{Cancelled: true})
	mustContain(t, plain(m), "turn cancelled")
	// Idle: the first Ctrl-C warns, the second quits.
	_, cmd := m.Update(key(tea.KeyCtrlC))
	if m.Quitting() || cmd != nil {
		t.Fatal("first idle Ctrl-C quit")
	}
	mustContain(t, plain(m), "press Ctrl-C again to quit")
	_, cmd = m.Update(key(tea.KeyCtrlC))
	if !m.Quitting() || cmd == nil {
		t.Fatal("second idle Ctrl-C did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("quit command is not tea.Quit")
	}
}

func TestCtrlCClearsInputFirst(t *testing.T) {
	m, _ := newModel(t)
	typeText(m, "draft")
	send(m, key(tea.KeyCtrlC))
	if m.input.Value() != "" || m.Quitting() {
		t.Fatalf("input %q quitting %v", m.input.Value(), m.Quitting())
	}
}

func TestToolCardLifecycle(t *testing.T) {
	m, _ := newModel(t)
	args := json.RawMessage(`{"command":"go test ./...","timeout":60}`)
	send(m, ToolStarted{ID: "c1", Name: "shell", Args: args})
	mustContain(t, plain(m), "⠋ Running `go test ./...`")
	send(m, ToolProgress{ID: "c1", Text: "ok  pkg/a\n", Done: 3, Total: 10, Message: "testing"})
	v := plain(m)
	mustContain(t, v, "3/10 testing", "ok  pkg/a")
	send(m, ToolFinished{ID: "c1", Status: ToolOK, Display: "all 10 packages pass", Sandbox: "workspace-write, no network"})
	v = plain(m)
	mustContain(t, v, "✓ Run `go test ./...`", "all 10 packages pass", "sandbox: workspace-write, no network")
	mustNotContain(t, v, "Running", "3/10")

	send(m, ToolStarted{ID: "c2", Name: "read_file", Args: json.RawMessage(`{"path":"nope"}`)},
		ToolFinished{ID: "c2", Status: ToolError, Error: "no such file"})
	mustContain(t, plain(m), "✗ Read nope  failed", "no such file")
}

func TestToolCardClipsOutput(t *testing.T) {
	m, _ := newModel(t)
	var lines []string
	for i := range 20 {
		lines = append(lines, "line "+string(rune('a'+i)))
	}
	send(m, ToolStarted{ID: "c", Name: "grep"}, ToolFinished{ID: "c", Status: ToolOK, Display: strings.Join(lines, "\n")})
	v := plain(m)
	mustContain(t, v, "line a", "line d", "13 more lines", "line r", "line t")
	mustNotContain(t, v, "line e", "line q")
}

func confirmWrite() ConfirmRequested {
	return ConfirmRequested{ID: "req-1", CallID: "c1", Details: policy.Details{
		Tool: "write_file", Description: "Write hello.txt", Kind: "edit", Risk: "medium",
		Params: json.RawMessage(`{"path":"hello.txt","content":"hi\n"}`),
		Diff:   "--- a/hello.txt\n+++ b/hello.txt\n@@ -0,0 +1 @@\n+hi\n",
		Reason: "rule ask-edits asks", Locations: []string{"hello.txt"},
	}}
}

func TestConfirmDialogAllowAlways(t *testing.T) {
	m, f := newModel(t)
	send(m, ToolStarted{ID: "c1", Name: "write_file"}, confirmWrite())
	v := plain(m)
	mustContain(t, v, "Allow write_file?", "Write hello.txt", "why: rule ask-edits asks",
		"+++ b/hello.txt", "@@ -0,0 +1 @@", "+hi", "[y] allow once", "[a] allow always", "[n] deny", "waiting for you")
	// The dialog has the keyboard: typing does not reach the input.
	send(m, runeKey('x'))
	if len(f.answers) != 0 || m.input.Value() != "" {
		t.Fatalf("answers %v input %q", f.answers, m.input.Value())
	}
	send(m, runeKey('a'))
	if len(f.answers) != 1 || f.answers[0] != (answer{"req-1", bus.AllowAlways, ""}) {
		t.Fatalf("answers = %v", f.answers)
	}
	v = plain(m)
	mustNotContain(t, v, "[y] allow once", "waiting for you")
	mustContain(t, v, "write_file: allowed always", "Writing")
}

func TestConfirmDialogShowsArgsWithoutDiff(t *testing.T) {
	m, f := newModel(t)
	send(m, ConfirmRequested{ID: "r", Details: policy.Details{Tool: "fetch", Params: json.RawMessage(`{"url":"http://x.test/a"}`)}})
	mustContain(t, plain(m), `"url": "http://x.test/a"`)
	send(m, runeKey('y'))
	if f.answers[0] != (answer{"r", bus.AllowOnce, ""}) {
		t.Fatalf("answers = %v", f.answers)
	}
}

func TestConfirmDenyMarksCardAndQueues(t *testing.T) {
	m, f := newModel(t)
	second := confirmWrite()
	second.ID, second.CallID = "req-2", "c2"
	send(m, ToolStarted{ID: "c1", Name: "write_file"}, ToolStarted{ID: "c2", Name: "write_file"}, confirmWrite(), second)
	mustContain(t, plain(m), "+1 more waiting")
	send(m, runeKey('n'))
	mustContain(t, plain(m), "⊘ Write  denied", "Allow write_file?")
	send(m, key(tea.KeyEsc))
	want := []answer{{"req-1", bus.Deny, ""}, {"req-2", bus.Deny, ""}}
	if len(f.answers) != 2 || f.answers[0] != want[0] || f.answers[1] != want[1] {
		t.Fatalf("answers = %v", f.answers)
	}
	mustNotContain(t, plain(m), "Allow write_file?")
}

func TestConfirmResolvedElsewhereClosesDialog(t *testing.T) {
	m, f := newModel(t)
	send(m, confirmWrite(), ConfirmResolved{ID: "req-1", Answer: "deny", Reason: "confirmation timed out"})
	v := plain(m)
	mustNotContain(t, v, "[y] allow once")
	mustContain(t, v, "confirmation deny: confirmation timed out")
	if len(f.answers) != 0 {
		t.Fatal("answered a withdrawn request")
	}
}

func TestStartApprovals(t *testing.T) {
	m, f := newModel(t)
	send(m, ApprovalsNeeded{Items: []Approval{
		{ID: "h1", Kind: "hook", Name: "fmt-on-save", Detail: "./hooks/fmt.sh"},
		{ID: "m1", Kind: "mcp", Name: "github", Detail: "npx server-github", Changed: true},
	}})
	v := plain(m)
	mustContain(t, v, "Approve before the session starts", "▸ hook fmt-on-save: ./hooks/fmt.sh", "mcp github (changed): npx server-github", "[a] approve", "[s] skip")
	send(m, runeKey('a'), runeKey('s'))
	if len(f.approvals) != 2 || f.approvals[0] != (approval{"h1", true}) || f.approvals[1] != (approval{"m1", false}) {
		t.Fatalf("approvals = %v", f.approvals)
	}
	v = plain(m)
	mustNotContain(t, v, "Approve before")
	mustContain(t, v, "approved hook fmt-on-save", "skipped mcp github", "> ")
}

// The start dialog says where each item comes from: a --ext extension's
// hook is not "from this workspace" (issue 18).
func TestStartApprovalsSayWhereFrom(t *testing.T) {
	m, _ := newModel(t)
	send(m, ApprovalsNeeded{Items: []Approval{
		{ID: "h1", Kind: "hook", Name: "guard/check (before_tool, flag)", Detail: "sh check.sh", From: "--ext /src/guard"},
		{ID: "m1", Kind: "mcp", Name: "db", Detail: "node db.js", From: "this workspace"},
	}})
	v := plain(m)
	mustContain(t, v, "These have not been approved (or changed since):",
		"hook guard/check (before_tool, flag) from --ext /src/guard: sh check.sh", "mcp db from this workspace: node db.js")
	mustNotContain(t, v, "come from this workspace")
}

func TestStatusLine(t *testing.T) {
	m, _ := newModel(t)
	send(m, MCPChanged{Server: MCPServer{Name: "github", State: "starting"}},
		MCPChanged{Server: MCPServer{Name: "fs", State: "ready"}},
		MCPChanged{Server: MCPServer{Name: "github", State: "failed"}},
		ContextChanged{Used: 2048, Window: 8192})
	mustContain(t, plain(m), "model test-model", "gen 3", "mcp github:failed fs:ready", "ctx 2048/8192 (25%)")
}

func TestMessages(t *testing.T) {
	m, _ := newModel(t)
	send(m, Blocked{Event: "before_tool", By: "no-rm", Reason: "rm is not allowed"},
		SystemMessage{Hook: "session_start", Text: "branch main is dirty"},
		Notice{Text: "conversation compacted"},
		ErrorEvent{Err: "model not found: run ollama pull x"})
	mustContain(t, plain(m), "before_tool blocked by no-rm: rm is not allowed", "[session_start] branch main is dirty",
		"conversation compacted", "model not found: run ollama pull x")
}

func TestSlashCommands(t *testing.T) {
	m, f := newModel(t)
	typeText(m, "/help")
	send(m, key(tea.KeyEnter))
	mustContain(t, plain(m), "/compact", "the tools the model can call")
	if len(f.commands) != 0 {
		t.Fatal("/help went to the runtime")
	}

	f.cmdOut = "read_file  read\nwrite_file edit"
	typeText(m, "/tools")
	send(m, key(tea.KeyEnter))
	mustContain(t, plain(m), "write_file edit")
	if len(f.commands) != 1 || f.commands[0].Kind != CmdTools {
		t.Fatalf("commands = %v", f.commands)
	}

	f.cmdOut = ""
	typeText(m, "/review file=a.go")
	send(m, key(tea.KeyEnter))
	if !m.Busy() || f.commands[1].Name != "review" || f.commands[1].Rest != "file=a.go" {
		t.Fatalf("busy %v commands %v", m.Busy(), f.commands)
	}
	send(m, TurnDone{})

	f.cmdErr = errFake
	typeText(m, "/reload")
	send(m, key(tea.KeyEnter))
	mustContain(t, plain(m), "fake failure")
	f.cmdErr = nil

	typeText(m, "/bogus?")
	send(m, key(tea.KeyEnter))
	mustContain(t, plain(m), "unknown command /bogus?")

	typeText(m, "/clear")
	send(m, key(tea.KeyEnter))
	v := plain(m)
	mustNotContain(t, v, "write_file edit", "fake failure")
	if f.commands[len(f.commands)-1].Kind != CmdClear {
		t.Fatal("/clear not passed to the runtime")
	}

	typeText(m, "/quit")
	_, cmd := m.Update(key(tea.KeyEnter))
	if !m.Quitting() || cmd == nil {
		t.Fatal("/quit did not quit")
	}
}

func TestEventsChannel(t *testing.T) {
	m, f := newModel(t)
	f.events <- ContentDelta{"from the channel"}
	msg := m.listen()()
	_, cmd := m.Update(msg)
	if cmd == nil {
		t.Fatal("no command to keep listening")
	}
	mustContain(t, plain(m), "from the channel")
	close(f.events)
	_, cmd = m.Update(m.listen()())
	if !m.Quitting() || cmd == nil {
		t.Fatal("closed events did not end the program")
	}
}

func TestResizeRewraps(t *testing.T) {
	m, _ := newModel(t)
	long := strings.Repeat("word ", 40)
	send(m, ContentDelta{long}, AssistantDone{})
	send(m, tea.WindowSizeMsg{Width: 40, Height: 20})
	for _, l := range strings.Split(plain(m), "\n") {
		if len([]rune(l)) > 40 {
			t.Fatalf("line wider than 40: %q", l)
		}
	}
}

// /model NAME, /reload and /clear are work on the session: the model is
// busy until TurnDone, the status line is read again then, and /clear
// clears the screen only when the runtime accepted it.
func TestSessionJobs(t *testing.T) {
	m, f := newModel(t)
	send(m, ContentDelta{"earlier answer"}, AssistantDone{})

	typeText(m, "/model other")
	send(m, key(tea.KeyEnter))
	if !m.Busy() || f.commands[0].Kind != CmdModel || f.commands[0].Args[0] != "other" {
		t.Fatalf("busy %v commands %v", m.Busy(), f.commands)
	}
	f.status.Model = "other"
	send(m, Notice{"model other for the rest of the session"}, TurnDone{})
	if m.Busy() {
		t.Fatal("still busy after TurnDone")
	}
	mustContain(t, plain(m), "model other for the rest of the session", "model other")

	typeText(m, "/model")
	send(m, key(tea.KeyEnter))
	if m.Busy() {
		t.Fatal("/model without a name should only show the model")
	}

	f.cmdErr = errFake
	typeText(m, "/clear")
	send(m, key(tea.KeyEnter))
	mustContain(t, plain(m), "earlier answer", "fake failure")
	f.cmdErr = nil
	typeText(m, "/clear")
	send(m, key(tea.KeyEnter))
	mustNotContain(t, plain(m), "earlier answer")
	send(m, Notice{"conversation cleared"}, ContextChanged{Window: 8192}, TurnDone{})

	typeText(m, "/reload")
	send(m, key(tea.KeyEnter))
	if !m.Busy() {
		t.Fatal("/reload is not work on the session")
	}
	send(m, Notice{"reloaded: stopped 1, loaded 2, ready 1, failed 1"}, ApprovalsNeeded{Items: []Approval{{ID: "mcp:db", Kind: "mcp", Name: "db", Detail: "node db.js"}}}, TurnDone{})
	mustContain(t, plain(m), "reloaded: stopped 1, loaded 2, ready 1, failed 1", "mcp db: node db.js")
	send(m, runeKey('a'))
	if len(f.approvals) != 1 || f.approvals[0] != (approval{"mcp:db", true}) {
		t.Fatalf("approvals = %v", f.approvals)
	}
}
