package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The fault servers are this test binary run again with OLLM_MCP_FAULT set:
// a small MCP server over stdio that misbehaves in the named way.
const faultEnv = "OLLM_MCP_FAULT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(faultEnv); mode != "" {
		os.Exit(faultServer(mode))
	}
	os.Exit(m.Run())
}

// faultSpec runs the fault server in mode.
func faultSpec(t testing.TB, name, mode string, env ...string) Spec {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{faultEnv: mode}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		e[k] = v
	}
	return Spec{Name: name, Config: Config{Command: exe, Env: e, Enabled: true}}
}

type rpcMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

type faultSrv struct {
	mode   string
	mu     sync.Mutex
	out    *bufio.Writer
	extra  bool // add-tool was called
	record string
}

func (s *faultSrv) send(v any) {
	b, _ := json.Marshal(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.Write(b)
	s.out.WriteByte('\n')
	s.out.Flush()
}

func (s *faultSrv) reply(id json.RawMessage, result any) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *faultSrv) note(line string) {
	if s.record == "" {
		return
	}
	f, err := os.OpenFile(s.record, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintln(f, line)
		f.Close()
	}
}

func faultServer(mode string) int {
	if mode == "exit" {
		fmt.Fprintln(os.Stderr, "fatal: cannot open database /nonexistent/db")
		return 3
	}
	s := &faultSrv{mode: mode, out: bufio.NewWriter(os.Stdout), record: os.Getenv("OLLM_MCP_FAULT_RECORD")}
	if mode == "env" { // records the environment it was started with
		for _, kv := range os.Environ() {
			s.note("env " + kv)
		}
	}
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
		child := exec.Command("sleep", "1000")
		if err := child.Start(); err == nil {
			s.note(fmt.Sprintf("child %d", child.Process.Pid))
		}
		s.note(fmt.Sprintf("pid %d", os.Getpid()))
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var m rpcMsg
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		s.handle(m)
	}
	s.note("stdin closed")
	if mode == "stubborn" { // ignores stdin EOF and SIGTERM
		select {}
	}
	return 0
}

func (s *faultSrv) handle(m rpcMsg) {
	if m.Method != "" {
		s.note("method " + m.Method)
	}
	switch m.Method {
	case "server/discover":
		switch s.mode {
		case "lenient": // answers every method it does not know with {}
			s.reply(m.ID, map[string]any{})
		case "modern", "modern-only":
			s.reply(m.ID, map[string]any{
				"supportedVersions": []string{"2026-07-28"},
				"capabilities":      map[string]any{"tools": map[string]any{}},
				"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "fault", "version": "1"}},
			})
		case "otherversion": // a result for a version nobody asked for
			s.reply(m.ID, map[string]any{"supportedVersions": []string{"2099-01-01"}, "capabilities": map[string]any{}})
		default:
			s.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
		}
	case "initialize":
		var p struct {
			Capabilities json.RawMessage `json:"capabilities"`
		}
		json.Unmarshal(m.Params, &p)
		s.note("capabilities " + string(p.Capabilities))
		if s.mode == "noinit" {
			return
		}
		if s.mode == "modern-only" {
			s.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32600, "message": "initialize was removed in 2026-07-28; use server/discover"}})
			return
		}
		s.reply(m.ID, map[string]any{
			"protocolVersion": "2025-06-18",
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
			"serverInfo":      map[string]any{"name": "fault", "version": "1"},
		})
	case "tools/list":
		s.reply(m.ID, s.toolsPage(m.Params))
	case "tools/call":
		go s.call(m)
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		json.Unmarshal(m.Params, &p)
		s.note("cancelled " + string(p.RequestID))
	case "":
	default:
		if len(m.ID) > 0 && s.mode == "lenient" {
			s.reply(m.ID, map[string]any{})
		} else if len(m.ID) > 0 {
			s.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
		}
	}
}

// toolsPage serves tools/list in two pages to exercise pagination.
func (s *faultSrv) toolsPage(params json.RawMessage) map[string]any {
	obj := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	tool := func(name string) map[string]any { return map[string]any{"name": name, "inputSchema": obj} }
	if !strings.Contains(string(params), "page2") {
		return map[string]any{"tools": []any{tool("echo"), tool("crash"), tool("huge")}, "nextCursor": "page2"}
	}
	tools := []any{tool("slow"), tool("malformed"), tool("add-tool"),
		map[string]any{"name": "broken", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "strng"}}}},
		map[string]any{"name": "fails", "inputSchema": obj},
	}
	s.mu.Lock()
	if s.extra {
		tools = append(tools, tool("extra"))
	}
	s.mu.Unlock()
	return map[string]any{"tools": tools}
}

func (s *faultSrv) call(m rpcMsg) {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	json.Unmarshal(m.Params, &p)
	text := func(t string) map[string]any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": t}}}
	}
	switch p.Name {
	case "echo":
		if s.mode == "flood" {
			s.flood()
		}
		s.reply(m.ID, text(os.Getenv("OLLM_MCP_FAULT_NAME")+fmt.Sprint(p.Arguments["text"])))
	case "crash":
		if s.mode == "sigkill" {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		fmt.Fprintln(os.Stderr, "panic: boom in crash tool")
		os.Exit(2)
	case "huge":
		s.huge(m.ID)
	case "slow":
		s.note("slow started " + string(m.ID))
		time.Sleep(time.Hour)
	case "malformed":
		s.mu.Lock()
		fmt.Fprintf(s.out, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[\n", m.ID)
		s.out.Flush()
		s.mu.Unlock()
	case "add-tool":
		s.mu.Lock()
		s.extra = true
		s.mu.Unlock()
		s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
		s.reply(m.ID, text("added"))
	case "fails":
		s.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32000, "message": "database is locked"}})
	}
}

// flood sends many notifications before the answer.
func (s *faultSrv) flood() {
	for i := 0; i < 20000; i++ {
		s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message",
			"params": map[string]any{"level": "info", "data": fmt.Sprintf("flood %d %s", i, strings.Repeat("z", 200))}})
		if i%1000 == 0 {
			s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
				"params": map[string]any{"progressToken": "not-ours", "progress": i}})
		}
	}
}

// huge answers with a 50 MB text, streamed so the server itself stays small.
func (s *faultSrv) huge(id json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprint(s.out, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"BEGIN `)
	chunk := strings.Repeat("0123456789abcdef", 4096)
	for n := 0; n < 50<<20; n += len(chunk) {
		s.out.WriteString(chunk)
	}
	fmt.Fprintf(s.out, ` END"}]},"id":%s}`+"\n", id)
	s.out.Flush()
}
