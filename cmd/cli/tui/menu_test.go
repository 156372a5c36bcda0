package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// cmdsMsgOf runs cmd (and the commands a batch holds) and returns the
// first message of menu.go's commands; the others (ticks) are dropped.
func cmdsMsgOf(t *testing.T, cmd tea.Cmd) cmdsMsg {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command to run")
	}
	ch := make(chan tea.Msg, 16)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		go func() {
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, s := range b {
					if s != nil {
						run(s)
					}
				}
				return
			}
			ch <- msg
		}()
	}
	run(cmd)
	for msg := range ch {
		if cm, ok := msg.(cmdsMsg); ok {
			return cm
		}
	}
	return nil
}

func menuModel(t *testing.T) (*Model, *fakeRuntime) {
	m, f := newModel(t)
	f.menu = []MenuItem{
		{Name: "review", Args: "[args]", Description: "review the staged diff", Source: "Gemini command"},
		{Name: "greet", Args: "[args]", Description: "say hello", Source: "extension demo"},
		{Name: "release-notes", Args: "<version>", Description: "draft release notes", Source: "skill", NeedsArgs: true},
		{Name: "simple_prompt", Description: "a prompt without arguments", Source: "MCP prompt (everything)"},
	}
	return m, f
}

// "/" opens the menu of every command with descriptions and where each
// comes from; typing narrows it; ↓ and Tab complete the chosen name;
// Enter runs it.
func TestMenuFiltersCompletesRuns(t *testing.T) {
	m, f := menuModel(t)
	typeText(m, "/")
	v := plain(m)
	mustContain(t, v, "▸ /help", "/model [name]", "pick, switch or pull the model", "/trust", "/resume [id]",
		"16 commands", "tab complete")
	typeText(m, "r")
	mustContain(t, plain(m), "/review [args]", "review the staged diff", "· Gemini command", "/greet", "· extension demo")
	typeText(m, "e")
	v = plain(m)
	mustContain(t, v, "▸ /resume", "/reload", "/review", "/release-notes <version>")
	mustNotContain(t, v, "/help", "/model", "/tools")
	send(m, key(tea.KeyDown))
	send(m, key(tea.KeyTab))
	if got := m.input.Value(); got != "/reload" {
		t.Fatalf("Tab completed %q, want /reload", got)
	}
	send(m, key(tea.KeyEnter))
	if len(f.commands) != 1 || f.commands[0].Kind != CmdReload {
		t.Fatalf("ran %+v, want /reload", f.commands)
	}
	mustNotContain(t, plain(m), "tab complete")
}

// Enter runs the chosen command; one that needs arguments is completed
// instead; Esc closes the menu until the input changes; a typed command
// with arguments has no menu.
func TestMenuEnterAndEsc(t *testing.T) {
	m, f := menuModel(t)
	typeText(m, "/mc")
	send(m, key(tea.KeyEnter))
	if len(f.commands) != 1 || f.commands[0].Kind != CmdMCP {
		t.Fatalf("ran %+v, want /mcp", f.commands)
	}
	typeText(m, "/rel")
	mustContain(t, plain(m), "▸ /reload")
	send(m, key(tea.KeyDown), key(tea.KeyEnter))
	if got := m.input.Value(); got != "/release-notes " || len(f.commands) != 1 {
		t.Fatalf("input %q, commands %+v: a command that needs arguments must be completed", got, f.commands)
	}
	mustNotContain(t, plain(m), "tab complete")
	m.resetInput()
	typeText(m, "/gr")
	mustContain(t, plain(m), "▸ /greet")
	send(m, key(tea.KeyEsc))
	mustNotContain(t, plain(m), "say hello")
	typeText(m, "e")
	mustContain(t, plain(m), "▸ /greet")
	typeText(m, "et hi")
	mustNotContain(t, plain(m), "say hello")
	typeText(m, "x")
	send(m, key(tea.KeyEnter))
	if c := f.commands[len(f.commands)-1]; c.Name != "greet" || c.Rest != "hix" {
		t.Fatalf("ran %+v", c)
	}
	typeText(m, "/zzz")
	mustContain(t, plain(m), "no command matches /zzz")
}

// With the menu closed, ↑ still walks the history (input.go); a
// "/command" it brings back opens no menu, so ↑ goes on walking; typing
// on it opens the menu again.
func TestMenuLeavesHistory(t *testing.T) {
	m, f := menuModel(t)
	typeText(m, "hello")
	send(m, key(tea.KeyEnter))
	f.events <- TurnDone{}
	send(m, <-f.events)
	typeText(m, "/tools")
	send(m, key(tea.KeyEnter))
	send(m, key(tea.KeyUp))
	if got := m.input.Value(); got != "/tools" {
		t.Fatalf("↑ gave %q", got)
	}
	mustNotContain(t, plain(m), "tab complete")
	send(m, key(tea.KeyUp))
	if got := m.input.Value(); got != "hello" {
		t.Fatalf("the second ↑ gave %q", got)
	}
	send(m, key(tea.KeyDown))
	if got := m.input.Value(); got != "/tools" {
		t.Fatalf("↓ gave %q", got)
	}
	mustNotContain(t, plain(m), "tab complete")
	send(m, key(tea.KeyBackspace))
	mustContain(t, plain(m), "▸ /tools")
}

// "@" completes the workspace's files, without what .gitignore ignores
// or hidden files, and the prompt sent names the chosen file.
func TestMentionCompletesFiles(t *testing.T) {
	ws := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for name, body := range map[string]string{".gitignore": "*.log\n", "main.go": "package main", "src/util.go": "package src",
		"src/util_test.go": "package src", "debug.log": "x", ".env": "K=1"} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", t.TempDir())
	f := newFake()
	m := New(f, Options{Width: 100, Height: 40, Style: "notty", Workspace: ws})
	typeText(m, "explain @")
	v := plain(m)
	mustContain(t, v, "▸ @main.go", "@src/", "@src/util.go", "tab/enter attach")
	mustNotContain(t, v, "debug.log", ".env", ".gitignore")
	typeText(m, "uti")
	v = plain(m)
	mustContain(t, v, "▸ @src/util.go", "@src/util_test.go")
	mustNotContain(t, v, "@main.go")
	send(m, key(tea.KeyTab))
	if got := m.input.Value(); got != "explain @src/util.go " {
		t.Fatalf("Tab gave %q", got)
	}
	mustNotContain(t, plain(m), "tab/enter attach")
	typeText(m, "and @s")
	send(m, key(tea.KeyEnter)) // a directory: the menu goes on inside it
	if got := m.input.Value(); got != "explain @src/util.go and @src/" {
		t.Fatalf("Enter gave %q", got)
	}
	mustContain(t, plain(m), "▸ @src/util.go")
	send(m, key(tea.KeyDown), key(tea.KeyEnter))
	send(m, key(tea.KeyEnter))
	if len(f.prompts) != 1 || f.prompts[0] != "explain @src/util.go and @src/util_test.go" {
		t.Fatalf("prompts %q", f.prompts)
	}
}

// A mention in the middle of the text (the cursor not at its end) opens
// no menu; an email address is no mention.
func TestMentionOnlyAtCursorWord(t *testing.T) {
	f := newFake()
	m := New(f, Options{Width: 100, Height: 40, Style: "notty", Workspace: t.TempDir()})
	typeText(m, "mail me@host")
	mustNotContain(t, plain(m), "attach")
	m.resetInput()
	typeText(m, "@x")
	mustContain(t, plain(m), "no file matches @x")
	send(m, key(tea.KeyLeft))
	mustNotContain(t, plain(m), "no file matches")
}

func TestMenuItemsOfRuntime(t *testing.T) {
	if !strings.Contains(HelpText, "/trust") || !strings.Contains(HelpText, "/resume") {
		t.Error("help lacks /trust or /resume")
	}
}

// What extensions, MCP servers and a hostile repository name is drawn as
// text: no escape sequence from a description, no file whose name holds
// one.
func TestMenuDrawsNoEscapes(t *testing.T) {
	ws := t.TempDir()
	for _, name := range []string{"ok.txt", "evil\x1b[2J\x1b[Hname.txt"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", t.TempDir())
	f := newFake()
	f.menu = []MenuItem{{Name: "sneaky", Description: "looks fine\x1b[2J\x1b[31mALLOW", Source: "MCP prompt (evil)"}}
	m := New(f, Options{Width: 100, Height: 40, Style: "notty", Workspace: ws})
	typeText(m, "/sn")
	if v := m.View(); strings.Contains(v, "\x1b[2J") || strings.Contains(v, "\x1b[31mALLOW") {
		t.Fatalf("the menu draws the description's escapes: %q", v)
	}
	mustContain(t, plain(m), "/sneaky", "looks fine")
	m.resetInput()
	typeText(m, "@")
	v := m.View()
	mustContain(t, plain(m), "@ok.txt")
	if strings.Contains(v, "evil") {
		t.Fatalf("a file name with escapes is offered: %q", v)
	}
}
