package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
	"github.com/ollm/ollm/tools"
)

// agentModel is a Model on a real AgentRuntime and agent session talking
// to the model config mc.
func agentModel(t *testing.T, mc schema.Model) (*Model, *AgentRuntime) {
	t.Helper()
	p, err := llm.NewOllama(mc, llm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewAgentRuntime(context.Background(), AgentOptions{})
	t.Cleanup(r.Close)
	pol, err := policy.Compile(schema.Policy{DefaultAction: "allow"}, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := agent.New(agent.Config{Provider: p, Model: mc.Name, Policy: pol, OnEvent: r.OnEvent})
	if err != nil {
		t.Fatal(err)
	}
	r.Attach(s)
	m := New(r, Options{Width: 100, Height: 40, Style: "notty"})
	return m, r
}

// untilDone feeds the runtime's events to m until the turn ends; first,
// if set, runs once the first event of the turn arrived.
func untilDone(t *testing.T, m *Model, r *AgentRuntime, first func()) {
	t.Helper()
	for {
		ev, ok := <-r.Events()
		if !ok {
			t.Fatalf("events closed; the screen:\n%s", plain(m))
		}
		m.Update(ev)
		if first != nil {
			first()
			first = nil
		}
		if _, done := ev.(TurnDone); done {
			return
		}
	}
}

// The model's server down is said once, not as an error and again as the
// turn's end (issue 27).
func TestModelDownSaidOnce(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	m, r := agentModel(t, schema.Model{Provider: "ollama", Name: llmtest.DefaultModel, Endpoint: url})
	typeText(m, "hello")
	m.Update(key(tea.KeyEnter))
	untilDone(t, m, r, nil)
	v := plain(m)
	if n := strings.Count(v, "Ollama is not running"); n != 1 {
		t.Fatalf("said %d times:\n%s", n, v)
	}
}

// Ctrl-C during a turn says "turn cancelled" once, without the
// "turn cancelled: context canceled" before it (issue 27).
func TestCancelSaidOnce(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Text("thinking about it"), llmtest.Hang())
	m, r := agentModel(t, srv.ModelConfig())
	typeText(m, "hello")
	m.Update(key(tea.KeyEnter))
	untilDone(t, m, r, func() { m.Update(key(tea.KeyCtrlC)) })
	v := plain(m)
	if n := strings.Count(v, "turn cancelled"); n != 1 || strings.Contains(v, "context canceled") {
		t.Fatalf("cancel said %d times:\n%s", n, v)
	}
}

// atClock sets the spinner's clock to a fixed time the test moves.
func atClock(t *testing.T) *time.Time {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	old := now
	now = func() time.Time { return t0 }
	t.Cleanup(func() { now = old })
	return &t0
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// Every built-in tool's card says in words what the call does.
func TestToolHeaders(t *testing.T) {
	cases := []struct {
		name, policy, args, want string
	}{
		{"write_file", "", `{"path":"hello.py","content":"print(1)\n"}`, "Write hello.py"},
		{"edit_file", "", `{"path":"main.go","edits":[{"oldText":"a","newText":"b"},{"oldText":"c","newText":"d"}]}`, "Edit main.go (2 edits)"},
		{"edit_file", "", `{"path":"main.go","edits":[{"oldText":"a","newText":"b"}]}`, "Edit main.go (1 edit)"},
		{"read_file", "", `{"path":"README.md"}`, "Read README.md"},
		{"read_file", "", `{"path":"a.go","startLine":10,"endLine":20}`, "Read a.go lines 10-20"},
		{"read_many_files", "", `{"paths":["a.go","docs/*.md"]}`, "Read a.go, docs/*.md"},
		{"shell", "", `{"command":"go test ./...","timeout":60000}`, "Run `go test ./...`"},
		{"shell", "", `{"command":"make serve","background":true}`, "Start `make serve` in the background"},
		{"shell", "", `{"command":"echo a\necho b"}`, "Run `echo a…`"},
		{"shell_output", "", `{"id":"job-1"}`, "Check job-1"},
		{"shell_kill", "", `{"id":"job-1"}`, "Stop job-1"},
		{"grep", "", `{"pattern":"TODO","path":"src/"}`, "Search 'TODO' in src/"},
		{"grep", "", `{"pattern":"TODO","filePattern":"*.go"}`, "Search 'TODO' (*.go)"},
		{"glob", "", `{"pattern":"**/*.go"}`, "Glob **/*.go"},
		{"ls", "", `{"path":"src/"}`, "List src/"},
		{"ls", "", `{}`, "List ."},
		{"web_fetch", "", `{"url":"https://host/path"}`, "Fetch https://host/path"},
		{"web_fetch", "", `{"url":"https://bob:hunter2@host/p?token=abc&q=1"}`, "Fetch https://bob:[redacted]@host/p?token=[redacted]&q=1"},
		{"web_search", "", `{"query":"bubbletea spinner"}`, "Search the web for 'bubbletea spinner'"},
		{"memory", "", `{"action":"set","key":"style","value":"tabs"}`, "Remember style"},
		{"memory", "", `{"action":"get","key":"style"}`, "Recall style"},
		{"memory", "", `{"action":"delete","key":"style"}`, "Forget style"},
		{"memory", "", `{"action":"list"}`, "List memories"},
		{"write_todos", "", `{"todos":[{"text":"a"},{"text":"b"},{"text":"c"}]}`, "Todos (3)"},
		{"write_todos", "", `{"action":"add","text":"write tests"}`, "Add todo 'write tests'"},
		{"write_todos", "", `{"action":"complete","id":"2"}`, "Complete todo 2"},
		{"write_todos", "", `{"action":"remove","id":"2"}`, "Remove todo 2"},
		{"write_todos", "", `{"action":"list"}`, "List todos"},
		{"activate_skill", "", `{"name":"review"}`, "Load skill review"},
		{"echo", "everything:echo", `{"message":"hi there"}`, `everything · echo message="hi there"`},
		{"github__create_issue", "github:create_issue", `{"title":"Bug","labels":["a"]}`, `github · create_issue labels=["a"] title=Bug`},
		{"frobnicate", "", `{"level":3,"name":"x"}`, "frobnicate level=3 name=x"},
		{"frobnicate", "", `{"token_url":"https://u:pw@h/"}`, "frobnicate token_url=https://u:[redacted]@h/"},
	}
	for _, c := range cases {
		m, _ := newModel(t)
		send(m, ToolStarted{ID: "c", Name: c.name, Args: raw(c.args)})
		if c.policy != "" {
			send(m, ToolProgress{ID: "c", Tool: c.policy, Args: raw(c.args)})
		}
		send(m, ToolFinished{ID: "c", Status: ToolOK})
		v := plain(m)
		if !strings.Contains(v, "✓ "+c.want+" ") && !strings.Contains(v, "✓ "+c.want+"\n") {
			t.Errorf("%s %s: card lacks %q:\n%s", c.name, c.args, "✓ "+c.want, v)
		}
		if strings.Contains(v, "{") && !strings.Contains(c.want, "{") {
			t.Errorf("%s: raw JSON on the card:\n%s", c.name, v)
		}
	}
}

// Every tool the built-in registry has is in the table above, so a new
// tool gets a header on purpose.
func TestToolHeadersCoverBuiltins(t *testing.T) {
	covered := map[string]bool{}
	for _, n := range []string{"write_file", "edit_file", "read_file", "read_many_files", "shell", "shell_output",
		"shell_kill", "grep", "glob", "ls", "web_fetch", "web_search", "memory", "write_todos", "activate_skill"} {
		covered[n] = true
	}
	for _, n := range builtinToolNames(t) {
		if !covered[n] {
			t.Errorf("built-in tool %q has no header in toolHeader", n)
		}
		if h := toolHeader(n, "", raw(`{}`)); h.Verb == n {
			t.Errorf("built-in tool %q falls back to its name", n)
		}
	}
}

// A hostile model's arguments or a tool's output cannot move the cursor,
// clear the screen or draw a fake dialog.
func TestCardsDropEscapes(t *testing.T) {
	m, _ := newModel(t)
	send(m, ToolStarted{ID: "c", Name: "shell", Args: raw(`{"command":"ls\u001b[2J\u001b[H"}`)},
		ToolFinished{ID: "c", Status: ToolOK, Display: "out\u001b[1A\u001b[2K[y] allow once\rreal\u001b[31m!\u0007"})
	v := m.View()
	for _, bad := range []string{"\x1b[2J", "\x1b[H", "\x1b[1A", "\x1b[2K", "\a", "\r"} {
		if strings.Contains(v, bad) {
			t.Fatalf("view holds %q:\n%q", bad, v)
		}
	}
	mustContain(t, plain(m), "Run `ls`", "real")
	mustNotContain(t, plain(m), "allow once", "[2J", "[31m")
}

// A long output is folded to its first and last lines; ctrl+o shows it
// all and folds it again.
func TestLongOutputFolds(t *testing.T) {
	m, _ := newModel(t)
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("line %02d", i))
	}
	send(m, ToolStarted{ID: "c", Name: "grep", Args: raw(`{"pattern":"x"}`)},
		ToolFinished{ID: "c", Status: ToolOK, Display: strings.Join(lines, "\n")})
	v := plain(m)
	mustContain(t, v, "line 00", "line 03", "… 33 more lines (ctrl+o to expand)", "line 37", "line 39")
	mustNotContain(t, v, "line 04", "line 36")
	send(m, tea.KeyMsg{Type: tea.KeyCtrlO})
	v = plain(m)
	mustContain(t, v, "line 36", "line 39", "(ctrl+o to collapse)")
	mustNotContain(t, v, "more lines")
	send(m, tea.KeyMsg{Type: tea.KeyPgUp}, tea.KeyMsg{Type: tea.KeyPgUp}, tea.KeyMsg{Type: tea.KeyPgUp})
	mustContain(t, plain(m), "line 00", "line 04")
	send(m, tea.KeyMsg{Type: tea.KeyCtrlO})
	mustContain(t, plain(m), "33 more lines")
}

// While a call runs its latest lines show, with how many came before.
func TestRunningOutputTail(t *testing.T) {
	m, _ := newModel(t)
	send(m, ToolStarted{ID: "c", Name: "shell", Args: raw(`{"command":"make"}`)})
	for i := range 10 {
		send(m, ToolProgress{ID: "c", Text: "step " + string(rune('0'+i)) + "\n"})
	}
	v := plain(m)
	mustContain(t, v, "… 4 more lines (ctrl+o to expand)", "step 4", "step 9")
	mustNotContain(t, v, "step 3")
}

// The diff a user approved shows, coloured and folded, on the card once
// the write is done.
func TestApprovedWriteShowsDiff(t *testing.T) {
	m, _ := newModel(t)
	var b strings.Builder
	b.WriteString("--- a/hello.py\n+++ b/hello.py\n@@ -0,0 +1,30 @@\n")
	for i := range 30 {
		b.WriteString("+print(" + string(rune('a'+i%26)) + string(rune('0'+i/26)) + ")\n")
	}
	c := confirmWrite()
	c.Details.Tool, c.Details.Diff = "write_file", b.String()
	send(m, ToolStarted{ID: "c1", Name: "write_file", Args: raw(`{"path":"hello.py","content":"..."}`)}, c, runeKey('y'))
	mustNotContain(t, plain(m), "+print(a0)")
	send(m, ToolFinished{ID: "c1", Status: ToolOK, Display: "Created hello.py (300 bytes)."})
	v := plain(m)
	mustContain(t, v, "✓ Write hello.py", "Created hello.py", "+++ b/hello.py", "+print(a0)", "more lines (ctrl+o to expand)", "+print(d1)")
	if !strings.Contains(m.View(), stDiffAdd.Render("+print(a0)")) {
		t.Fatalf("the added line is not coloured:\n%q", m.View())
	}
	send(m, tea.KeyMsg{Type: tea.KeyCtrlO})
	mustContain(t, plain(m), "+print(q0)")
}

// A denied write shows no diff.
func TestDeniedWriteNoDiff(t *testing.T) {
	m, _ := newModel(t)
	send(m, ToolStarted{ID: "c1", Name: "write_file", Args: raw(`{"path":"hello.txt"}`)}, confirmWrite(), runeKey('n'),
		ToolFinished{ID: "c1", Status: ToolDenied, Error: "the user denied it"})
	v := plain(m)
	mustContain(t, v, "⊘ Write hello.txt", "denied")
	mustNotContain(t, v, "+hi")
}

// edit_file's display carries its diff: it is coloured, not doubled.
func TestEditDisplayDiffColoured(t *testing.T) {
	m, _ := newModel(t)
	diff := "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-old\n+new\n"
	send(m, ToolStarted{ID: "c", Name: "edit_file", Args: raw(`{"path":"x.go","edits":[{}]}`)},
		ConfirmRequested{ID: "r", CallID: "c", Details: policy.Details{Tool: "edit_file", Diff: diff}}, runeKey('y'),
		ToolFinished{ID: "c", Status: ToolOK, Display: "Applied 1 edit to x.go.\n" + diff})
	v := plain(m)
	mustContain(t, v, "✓ Edit x.go (1 edit)", "Applied 1 edit to x.go.")
	if n := strings.Count(v, "+new"); n != 1 {
		t.Fatalf("+new shown %d times:\n%s", n, v)
	}
	if !strings.Contains(m.View(), stDiffDel.Render("-old")) {
		t.Fatalf("the removed line is not coloured:\n%q", m.View())
	}
}

// A running call shows a spinner and its elapsed time; a finished one
// how long it took.
func TestSpinnerElapsed(t *testing.T) {
	clock := atClock(t)
	m, _ := newModel(t)
	typeText(m, "test it")
	send(m, key(tea.KeyEnter))
	mustContain(t, plain(m), "⠋ Working 0.0s")
	*clock = clock.Add(1500 * time.Millisecond)
	send(m, ThinkingDelta{Text: "hmm"})
	mustContain(t, plain(m), "Thinking 1.5s")
	send(m, ToolStarted{ID: "c", Name: "shell", Args: raw(`{"command":"go test ./..."}`)})
	*clock = clock.Add(3200 * time.Millisecond)
	send(m, spinMsg{})
	v := plain(m)
	mustContain(t, v, "⠹ Running `go test ./...`  3.2s")
	mustNotContain(t, v, "Thinking")
	*clock = clock.Add(800 * time.Millisecond)
	send(m, ToolFinished{ID: "c", Status: ToolOK, Display: "ok"})
	mustContain(t, plain(m), "✓ Run `go test ./...`  4.0s", "Working")
	send(m, TurnDone{})
	mustNotContain(t, plain(m), "Working", "⠋")
}

// The time a call waits for the user's answer is not counted as running.
func TestSpinnerSkipsAsking(t *testing.T) {
	clock := atClock(t)
	m, _ := newModel(t)
	send(m, ToolStarted{ID: "c1", Name: "write_file", Args: raw(`{"path":"hello.txt"}`)}, confirmWrite())
	*clock = clock.Add(time.Minute)
	send(m, runeKey('y'))
	*clock = clock.Add(2 * time.Second)
	send(m, ToolFinished{ID: "c1", Status: ToolOK, Display: "Created hello.txt (3 bytes)."})
	mustContain(t, plain(m), "✓ Write hello.txt  2.0s")
}

// One tick is in flight while something runs and none when idle: an idle
// session is not redrawn.
func TestSpinnerTicksOnlyWhileBusy(t *testing.T) {
	m, _ := newModel(t)
	if _, cmd := m.Update(spinMsg{}); cmd != nil || m.ticking {
		t.Fatal("an idle model scheduled a tick")
	}
	typeText(m, "go")
	if m.ticking {
		t.Fatal("typing scheduled a tick")
	}
	send(m, key(tea.KeyEnter))
	if !m.ticking {
		t.Fatal("no tick while a turn runs")
	}
	send(m, ContentDelta{Text: "hi"})
	if m.spin() != nil {
		t.Fatal("a second tick was scheduled while one is in flight")
	}
	_, cmd := m.Update(spinMsg{})
	if cmd == nil {
		t.Fatal("the tick was not renewed while busy")
	}
	if _, ok := cmd().(spinMsg); !ok {
		t.Fatal("the renewed command is not the spinner's tick")
	}
	send(m, TurnDone{})
	if _, cmd := m.Update(spinMsg{}); cmd != nil || m.ticking {
		t.Fatal("a tick was scheduled after the turn ended")
	}
}

// builtinToolNames is every built-in tool: the tools package's and the
// skill loader.
func builtinToolNames(t *testing.T) []string {
	root := t.TempDir()
	var names []string
	for _, tl := range tools.Builtin(tools.Config{Root: root, Home: store.Home{Dir: t.TempDir()}, Workspace: store.Workspace{Root: root}}) {
		names = append(names, tl.Name())
	}
	if len(names) < 10 {
		t.Fatalf("only %d built-in tools: %v", len(names), names)
	}
	return append(names, skills.ToolName)
}

// A result that only repeats the header is not shown twice.
func TestCardNoEcho(t *testing.T) {
	m, _ := newModel(t)
	send(m, ToolStarted{ID: "c", Name: "read_file", Args: raw(`{"path":"README.md"}`)},
		ToolFinished{ID: "c", Status: ToolOK, Display: "Read README.md"})
	if n := strings.Count(plain(m), "Read README.md"); n != 1 {
		t.Fatalf("said %d times:\n%s", n, plain(m))
	}
}

// A long header is cut to one line of the card, its time still shown.
func TestLongHeaderOneLine(t *testing.T) {
	clock := atClock(t)
	f := newFake()
	m := New(f, Options{Width: 60, Height: 20, Style: "notty"})
	send(m, ToolStarted{ID: "c", Name: "shell", Args: raw(`{"command":"` + strings.Repeat("echo hello; ", 20) + `"}`)})
	*clock = clock.Add(2 * time.Second)
	send(m, ToolFinished{ID: "c", Status: ToolError, Error: "exit 1"})
	v := plain(m)
	var head string
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, "✗ Run `echo hello;") {
			head = l
		}
	}
	if !strings.Contains(head, "…") || !strings.Contains(head, "failed 2.0s") || !strings.HasSuffix(strings.TrimSpace(head), "│") {
		t.Fatalf("header %q:\n%s", head, v)
	}
}
