package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollm/ollm/core/tool"
)

// events records a Manager's events and lets a test wait for one.
type events struct {
	mu   sync.Mutex
	list []Event
	ch   chan struct{}
}

func newEvents() *events { return &events{ch: make(chan struct{}, 1)} }

func (e *events) add(ev Event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	e.mu.Unlock()
	select {
	case e.ch <- struct{}{}:
	default:
	}
}

// wait returns the first event (from the start) that satisfies ok; the
// deadline only keeps a broken test from hanging.
func (e *events) wait(t *testing.T, what string, ok func(Event) bool) Event {
	t.Helper()
	deadline := time.After(90 * time.Second)
	for {
		e.mu.Lock()
		for _, ev := range e.list {
			if ok(ev) {
				e.mu.Unlock()
				return ev
			}
		}
		e.mu.Unlock()
		select {
		case <-e.ch:
		case <-deadline:
			t.Fatalf("no event: %s", what)
		}
	}
}

func toolNames(ts []tool.Tool) []string {
	var names []string
	for _, t := range ts {
		names = append(names, t.Name())
	}
	return names
}

func statusOf(m *Manager, name string) Status {
	for _, s := range m.Status() {
		if s.Name == name {
			return s
		}
	}
	return Status{}
}

func TestFailuresAreIsolated(t *testing.T) {
	dir := t.TempDir()
	specs := []Spec{
		faultSpec(t, "good", "normal"),
		faultSpec(t, "noinit", "noinit"),
		faultSpec(t, "exits", "exit"),
		{Name: "missing", Config: Config{Command: filepath.Join(dir, "no-such-server"), Args: []string{"--stdio"}, Enabled: true}},
		{Name: "off", Config: Config{Command: "whatever", Enabled: false}},
	}
	m := startManager(t, specs, Options{ConnectionTimeout: 2 * time.Second, LogDir: dir})
	st := map[string]Status{}
	for _, s := range m.Status() {
		st[s.Name] = s
	}
	if st["good"].State != StateReady || st["off"].State != StateDisabled {
		t.Fatalf("good %+v off %+v", st["good"], st["off"])
	}
	checks := map[string][]string{
		"noinit":  {`MCP server "noinit"`, os.Args[0], "initialize", "no answer within 2s", "mcp.connectionTimeout"},
		"exits":   {`MCP server "exits"`, "exited with status 3", "fatal: cannot open database", filepath.Join(dir, "mcp-exits.log")},
		"missing": {`MCP server "missing"`, "no-such-server --stdio", "does not exist"},
	}
	for name, wants := range checks {
		if st[name].State != StateFailed {
			t.Errorf("%s: state %s", name, st[name].State)
		}
		for _, w := range wants {
			if !strings.Contains(st[name].Error, w) {
				t.Errorf("%s: error %q does not mention %q", name, st[name].Error, w)
			}
		}
	}
	res := run(t, mustLookup(t, m, "echo"), `{"text":"still works"}`, nil)
	if res.Error != nil || res.ForModel != "still works" {
		t.Fatalf("good server: %+v", res)
	}
	if got := toolNames(m.Tools()); len(got) != 7 {
		t.Errorf("tools %v: want the good server's 7 (broken skipped)", got)
	}
}

func TestSessionStartsWhileSlowServerConnects(t *testing.T) {
	ev := newEvents()
	m := New([]Spec{faultSpec(t, "slow", "noinit"), faultSpec(t, "fast", "normal")},
		Options{ConnectionTimeout: time.Minute, LogDir: t.TempDir(), OnEvent: ev.add})
	m.Start()
	ev.wait(t, "fast ready", func(e Event) bool { return e.Server == "fast" && e.Status.State == StateReady })
	if s := statusOf(m, "slow"); s.State != StateConnecting {
		t.Errorf("slow: %+v", s)
	}
	if _, ok := m.Lookup("fast:echo"); !ok {
		t.Error("fast's tools are not usable while slow connects")
	}
	m.Close() // must not wait for the slow server's timeout
	if s := statusOf(m, "slow"); s.State == StateReady {
		t.Errorf("slow after close: %+v", s)
	}
}

func TestCrashMidCallRemovesToolsAndRestarts(t *testing.T) {
	ev := newEvents()
	m := startManager(t, []Spec{faultSpec(t, "crashy", "normal"), faultSpec(t, "other", "normal", "OLLM_MCP_FAULT_NAME=other:")},
		Options{OnEvent: ev.add, Restart: Backoff{Base: 10 * time.Millisecond}})
	res := run(t, mustLookup(t, m, "crashy:crash"), `{}`, nil)
	if res.Error == nil || res.Error.Kind != tool.ErrUnavailable {
		t.Fatalf("crash: %+v", res)
	}
	for _, w := range []string{`MCP server "crashy"`, "exited with status 2", "mcp-crashy.log"} {
		if !strings.Contains(res.Error.Message, w) {
			t.Errorf("crash error %q does not mention %q", res.Error.Message, w)
		}
	}
	failed := ev.wait(t, "crashy failed", func(e Event) bool { return e.Server == "crashy" && e.Status.State == StateFailed })
	for _, n := range toolNames(failed.Tools) {
		if strings.HasPrefix(n, "crashy") {
			t.Errorf("tool %s still listed after the crash", n)
		}
	}
	if !strings.Contains(failed.Status.Error, "panic: boom in crash tool") {
		t.Errorf("status error %q lacks the server's last stderr line", failed.Status.Error)
	}
	// The other server never noticed.
	if res := run(t, mustLookup(t, m, "other:echo"), `{"text":"ok"}`, nil); res.ForModel != "other:ok" {
		t.Errorf("other: %+v", res)
	}
	back := ev.wait(t, "crashy restarted", func(e Event) bool {
		return e.Server == "crashy" && e.Status.State == StateReady && e.Status.Restarts == 1
	})
	if len(back.Tools) != 14 {
		t.Errorf("after restart: %v", toolNames(back.Tools))
	}
}

func TestNameCollisionRouting(t *testing.T) {
	m := startManager(t, []Spec{
		faultSpec(t, "a", "normal", "OLLM_MCP_FAULT_NAME=from a:"),
		faultSpec(t, "b", "normal", "OLLM_MCP_FAULT_NAME=from b:"),
	}, Options{Reserved: func(n string) bool { return n == "slow" }})
	for _, c := range []struct{ name, want string }{
		{"a__echo", "from a:x"}, {"b__echo", "from b:x"}, {"a:echo", "from a:x"}, {"b:echo", "from b:x"},
	} {
		if res := run(t, mustLookup(t, m, c.name), `{"text":"x"}`, nil); res.ForModel != c.want {
			t.Errorf("%s: %+v", c.name, res)
		}
	}
	for _, n := range toolNames(m.Tools()) {
		if !ModelNamePattern.MatchString(n) || n == "echo" || n == "slow" {
			t.Errorf("tool name %q", n)
		}
	}
}

func TestPaginationSchemaSkipAndListChanged(t *testing.T) {
	ev := newEvents()
	m := startManager(t, []Spec{faultSpec(t, "f", "normal")}, Options{OnEvent: ev.add})
	names := toolNames(m.Tools())
	for _, want := range []string{"echo", "huge", "slow", "fails"} { // from both pages
		if !contains(names, want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	if contains(names, "broken") {
		t.Error("the tool with an invalid schema was not skipped")
	}
	if w := statusOf(m, "f").Warnings; len(w) != 1 || !strings.Contains(w[0], `tool "broken" skipped`) {
		t.Errorf("warnings %q", w)
	}
	res := run(t, mustLookup(t, m, "fails"), `{}`, nil)
	if res.Error == nil || res.Error.Kind != tool.ErrExec || !strings.Contains(res.Error.Message, "database is locked") {
		t.Errorf("JSON-RPC error: %+v", res)
	}
	run(t, mustLookup(t, m, "add-tool"), `{}`, nil)
	ev.wait(t, "extra tool after list_changed", func(e Event) bool { return contains(toolNames(e.Tools), "extra") })
}

func TestTimeoutAndCancellation(t *testing.T) {
	record := filepath.Join(t.TempDir(), "record")
	sp := faultSpec(t, "f", "normal", "OLLM_MCP_FAULT_RECORD="+record)
	sp.Config.Timeout = 300
	m := startManager(t, []Spec{sp}, Options{})
	slow := mustLookup(t, m, "slow")
	res := run(t, slow, `{}`, nil)
	if res.Error == nil || res.Error.Kind != tool.ErrTimeout || !strings.Contains(res.Error.Message, "no answer within 300ms") {
		t.Fatalf("timeout: %+v", res)
	}
	waitFile(t, record, "cancelled ")

	inv, _ := slow.Build([]byte(`{}`))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result)
	go func() { r, _ := inv.Execute(ctx, nil); done <- r }()
	id := secondSlowID(t, record)
	cancel()
	if r := <-done; r.Error == nil || r.Error.Kind != tool.ErrCancelled {
		t.Fatalf("cancel: %+v", r)
	}
	waitFile(t, record, "cancelled "+id)
}

// secondSlowID waits for the second slow call to start and returns its
// JSON-RPC id.
func secondSlowID(t *testing.T, record string) string {
	t.Helper()
	for i := 0; i < 3000; i++ {
		var ids []string
		for _, line := range strings.Split(readFile(record), "\n") {
			if id, ok := strings.CutPrefix(line, "slow started "); ok {
				ids = append(ids, id)
			}
		}
		if len(ids) == 2 {
			return ids[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the second slow call never started: %q", readFile(record))
	return ""
}

// waitFile waits until file contains s.
func waitFile(t *testing.T, file, s string) string {
	t.Helper()
	for i := 0; i < 3000; i++ {
		b, _ := os.ReadFile(file)
		if strings.Contains(string(b), s) {
			return string(b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	b, _ := os.ReadFile(file)
	t.Fatalf("%s never contained %q: %q", file, s, b)
	return ""
}

func TestFloodOfNotifications(t *testing.T) {
	dir := t.TempDir()
	m := startManager(t, []Spec{faultSpec(t, "flood", "flood")}, Options{LogDir: dir, MaxLogBytes: 1 << 20})
	var chunks int
	res := run(t, mustLookup(t, m, "echo"), `{"text":"after the flood"}`, func(tool.Chunk) { chunks++ })
	if res.Error != nil || res.ForModel != "after the flood" {
		t.Fatalf("%+v", res)
	}
	if chunks != 0 {
		t.Errorf("%d progress chunks for another token reached the call", chunks)
	}
	fi, err := os.Stat(filepath.Join(dir, "mcp-flood.log"))
	if err != nil || fi.Size() > 1<<20+200 {
		t.Fatalf("log file: %v, %v", fi, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "mcp-flood.log"))
	if !strings.Contains(string(b), "flood 0 ") || !strings.Contains(string(b), "log cut at") {
		t.Errorf("log file does not hold the first messages and the cut note")
	}
}

func TestHugeResultIsTruncatedInBoundedMemory(t *testing.T) {
	m := startManager(t, []Spec{faultSpec(t, "big", "normal")}, Options{MaxMessageBytes: 1 << 20})
	huge := mustLookup(t, m, "huge")
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := run(t, huge, `{}`, nil)
	runtime.ReadMemStats(&after)
	if res.Error != nil || !strings.HasPrefix(res.ForModel, "BEGIN 0123456789abcdef") || !strings.Contains(res.ForModel, "truncated") {
		t.Fatalf("result %.200q", res.ForModel)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 20<<20 {
		t.Errorf("a 50 MB result allocated %d MB", alloc>>20)
	}
	if res := run(t, mustLookup(t, m, "echo"), `{"text":"next"}`, nil); res.ForModel != "next" {
		t.Errorf("connection unusable after the huge result: %+v", res)
	}
}

func TestMalformedJSONRPCClosesConnection(t *testing.T) {
	m := startManager(t, []Spec{faultSpec(t, "bad", "normal")}, Options{Restart: Backoff{Max: -1}})
	res := run(t, mustLookup(t, m, "malformed"), `{}`, nil)
	if res.Error == nil || res.Error.Kind != tool.ErrUnavailable || !strings.Contains(res.Error.Message, "malformed JSON-RPC") {
		t.Fatalf("%+v", res)
	}
	waitState(t, m, "bad", StateFailed)
}

func waitState(t *testing.T, m *Manager, name string, want State) Status {
	t.Helper()
	for i := 0; i < 3000; i++ {
		if s := statusOf(m, name); s.State == want {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never reached %s: %+v", name, want, statusOf(m, name))
	return Status{}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	record := filepath.Join(t.TempDir(), "record")
	m := New([]Spec{faultSpec(t, "stubborn", "stubborn", "OLLM_MCP_FAULT_RECORD="+record)}, Options{LogDir: t.TempDir()})
	m.Start()
	if err := m.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := waitFile(t, record, "pid ")
	pids := map[string]int{}
	for _, line := range strings.Split(rec, "\n") {
		if f := strings.Fields(line); len(f) == 2 && (f[0] == "pid" || f[0] == "child") {
			pids[f[0]], _ = strconv.Atoi(f[1])
		}
	}
	if pids["pid"] == 0 || pids["child"] == 0 {
		t.Fatalf("record %q", rec)
	}
	m.Close()
	// The server is reaped by Close. Its child got the same SIGKILL (the
	// process group) but is not ollm's to reap: the kernel ends it a
	// moment later, which under load can be after Close returns. Wait
	// for it (bounded), rather than read a process still exiting as a
	// survivor; one that outlives the bound really survived.
	if alive(pids["pid"]) {
		t.Errorf("server process %d survived Close", pids["pid"])
	}
	for deadline := time.Now().Add(10 * time.Second); alive(pids["child"]) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pids["child"]) {
		t.Errorf("the server's child %d survived Close", pids["child"])
	}
	if !strings.Contains(readFile(record), "stdin closed") {
		t.Error("stdin was not closed first")
	}
}

func readFile(p string) string { b, _ := os.ReadFile(p); return string(b) }

// alive reports whether pid runs (a zombie waiting for its reaper counts
// as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

func TestApprovalAndDisabled(t *testing.T) {
	record := filepath.Join(t.TempDir(), "record")
	ws := faultSpec(t, "ws", "normal", "OLLM_MCP_FAULT_RECORD="+record)
	ws.Scope = "workspace"
	m := startManager(t, []Spec{ws}, Options{})
	if s := statusOf(m, "ws"); s.State != StateNeedsApproval || !strings.Contains(s.Error, "approve") {
		t.Errorf("unapproved workspace server: %+v", s)
	}
	approved := startManager(t, []Spec{ws}, Options{Approved: func(s Spec) bool { return s.Name == "ws" }})
	if s := statusOf(approved, "ws"); s.State != StateReady {
		t.Errorf("approved workspace server: %+v", s)
	}
	off := startManager(t, []Spec{faultSpec(t, "a", "normal")}, Options{Disabled: true})
	if s := statusOf(off, "a"); s.State != StateDisabled || len(off.Tools()) != 0 {
		t.Errorf("mcp.enabled false: %+v", s)
	}
}

func TestConcurrentCalls(t *testing.T) {
	m := startManager(t, []Spec{faultSpec(t, "a", "normal"), faultSpec(t, "b", "normal")}, Options{})
	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := ToolKey{Server: []string{"a", "b"}[i%2], Tool: "echo"}
			want := strconv.Itoa(i)
			res, err := m.Call(context.Background(), key, []byte(`{"text":"`+want+`"}`), nil)
			if err != nil || res.ForModel != want {
				errs <- fmt.Sprintf("%d: %+v %v", i, res, err)
			}
			m.Status()
			m.Tools()
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
