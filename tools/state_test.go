package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/store"
)

// TestMain lets the test binary act as a helper process that hammers the
// memory and todo files (see TestStateConcurrentProcesses).
func TestMain(m *testing.M) {
	if os.Getenv("OLLM_TOOLS_HELPER") != "" {
		if err := helperMain(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helperMain writes N memory entries and adds N todos through the tools.
func helperMain() error {
	n, _ := strconv.Atoi(os.Getenv("OLLM_TOOLS_N"))
	who := os.Getenv("OLLM_TOOLS_HELPER")
	root := os.Getenv("OLLM_TOOLS_ROOT")
	tools := map[string]tool.Tool{}
	for _, t := range Builtin(Config{Root: root, Home: store.Home{Dir: filepath.Join(root, "home")}}) {
		tools[t.Name()] = t
	}
	run := func(name, params string) error {
		inv, err := tools[name].Build(json.RawMessage(params))
		if err != nil {
			return err
		}
		res, err := inv.Execute(context.Background(), nil)
		if err == nil && res.Error != nil {
			err = res.Error
		}
		return err
	}
	for i := range n {
		if err := run("memory", fmt.Sprintf(`{"action":"set","key":"%s-%d","value":"v%d"}`, who, i, i)); err != nil {
			return err
		}
		if err := run("write_todos", fmt.Sprintf(`{"action":"add","text":"%s-%d"}`, who, i)); err != nil {
			return err
		}
	}
	return nil
}

// TestStateConcurrentProcesses runs two processes that each write memory
// and add todos a thousand times (a hundred with -short); nothing may be
// lost. Every write is an fsynced atomic replace under a file lock, so
// this takes seconds, not milliseconds.
func TestStateConcurrentProcesses(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	f := newFixture(t)
	var cmds []*exec.Cmd
	for _, who := range []string{"p1", "p2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "OLLM_TOOLS_HELPER="+who, "OLLM_TOOLS_ROOT="+f.root, "OLLM_TOOLS_N="+strconv.Itoa(n))
		cmd.Stderr = os.Stderr
		must(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		must(t, c.Wait())
	}
	var mem memoryFile
	if _, err := store.ReadJSON(filepath.Join(f.root, ".ollm", "memory.json"), &mem); err != nil {
		t.Fatal(err)
	}
	var todos todoFile
	if _, err := store.ReadJSON(filepath.Join(f.root, ".ollm", "todos.json"), &todos); err != nil {
		t.Fatal(err)
	}
	last := fmt.Sprintf("p1-%d", n-1)
	if len(mem.Entries) != 2*n || mem.Entries[last] != fmt.Sprintf("v%d", n-1) || mem.Entries["p2-0"] != "v0" {
		t.Fatalf("memory has %d entries, want %d", len(mem.Entries), 2*n)
	}
	ids := map[string]bool{}
	for _, td := range todos.Todos {
		ids[td.ID] = true
	}
	if len(todos.Todos) != 2*n || len(ids) != 2*n || todos.NextID != 2*n {
		t.Fatalf("todos: %d items, %d distinct ids, nextId %d; want %d", len(todos.Todos), len(ids), todos.NextID, 2*n)
	}
}

func TestMemory(t *testing.T) {
	f := newFixture(t)
	f.ok("memory", `{"action":"set","key":"lang","value":"Go"}`)
	f.ok("memory", `{"action":"set","key":"editor","value":"vim","scope":"global"}`)
	if got := f.ok("memory", `{"action":"get","key":"lang"}`); got != "Go" {
		t.Fatalf("get = %q", got)
	}
	f.fails("memory", `{"action":"get","key":"editor"}`, tool.ErrNotFound, `no memory entry "editor"`)
	if got := f.ok("memory", `{"action":"get","key":"editor","scope":"global"}`); got != "vim" {
		t.Fatalf("global get = %q", got)
	}
	f.ok("memory", `{"action":"set","key":"a","value":"1"}`)
	if got := f.ok("memory", `{"action":"list"}`); got != "a: 1\nlang: Go\n" {
		t.Fatalf("list = %q", got)
	}
	f.ok("memory", `{"action":"delete","key":"lang"}`)
	f.fails("memory", `{"action":"delete","key":"lang"}`, tool.ErrNotFound, `no memory entry "lang"`)
	if got := f.ok("memory", `{"action":"list","scope":"workspace"}`); got != "a: 1\n" {
		t.Fatalf("list after delete = %q", got)
	}
	// Persisted: a fresh set of tools sees the same data.
	f.rebuild()
	if got := f.ok("memory", `{"action":"list","scope":"global"}`); got != "editor: vim\n" {
		t.Fatalf("global list from new tools = %q", got)
	}
	if _, err := os.Stat(f.cfg.Home.Memory()); err != nil {
		t.Fatalf("global memory not at %s: %v", f.cfg.Home.Memory(), err)
	}
	f.fails("memory", `{"action":"get"}`, tool.ErrInvalidParams, `parameter "key"`)
	f.fails("memory", `{"action":"forget","key":"x"}`, tool.ErrInvalidParams, `parameter "action"`)
}

func TestWriteTodos(t *testing.T) {
	f := newFixture(t)
	f.ok("write_todos", `{"action":"add","text":"write tests"}`)
	f.ok("write_todos", `{"action":"add","text":"fix bug"}`)
	got := f.ok("write_todos", `{"action":"add","text":"ship"}`)
	if got != "[ ] 1 write tests\n[ ] 2 fix bug\n[ ] 3 ship\n" {
		t.Fatalf("after adds = %q", got)
	}
	f.ok("write_todos", `{"action":"complete","id":"2"}`)
	f.ok("write_todos", `{"action":"remove","id":"1"}`)
	got = f.ok("write_todos", `{"action":"add","text":"release notes"}`)
	if got != "[x] 2 fix bug\n[ ] 3 ship\n[ ] 4 release notes\n" {
		t.Fatalf("ids must be stable and never reused: %q", got)
	}
	f.rebuild()
	if got := f.ok("write_todos", `{"action":"list"}`); !strings.HasPrefix(got, "[x] 2 fix bug") {
		t.Fatalf("list from new tools = %q", got)
	}
	f.fails("write_todos", `{"action":"complete","id":"1"}`, tool.ErrNotFound, `no todo with id "1"`)
	f.fails("write_todos", `{"action":"add"}`, tool.ErrInvalidParams, `parameter "text"`)
	f.fails("write_todos", `{"action":"remove"}`, tool.ErrInvalidParams, `parameter "id"`)
	if c := f.build("write_todos", `{"action":"list"}`).Confirmation(); c.Kind != tool.KindThink || c.Risk != tool.RiskLow {
		t.Fatalf("confirmation = %+v", c)
	}
}
