package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// crashingHTTP is a streamable HTTP server whose tools fail the way a
// crashing server does: "drop" opens an event stream and ends it without
// the answer, "hangup" closes the connection under the request.
func crashingHTTP(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			rpcMsg
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &m)
		if len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result any
		switch m.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "crashing", "version": "1"}}
		case "tools/list":
			obj := map[string]any{"type": "object"}
			result = map[string]any{"tools": []any{map[string]any{"name": "drop", "inputSchema": obj}, map[string]any{"name": "hangup", "inputSchema": obj}}}
		case "tools/call":
			if m.Params.Name == "drop" {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				return
			}
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		default:
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no"}})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// captureDefaultLog sends slog's default logger to a buffer for the test:
// nothing of mcp-go's may reach the terminal.
func captureDefaultLog(t *testing.T) *bytes.Buffer {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

// A server that dies during a call over HTTP gets an error that says so
// and what to do, not mcp-go's "transport error: unexpected nil
// response"; mcp-go's log lines go to the server's log, not stderr.
func TestHTTPCrashMessages(t *testing.T) {
	stderr := captureDefaultLog(t)
	logs := t.TempDir()
	m := startManager(t, []Spec{{Name: "h", Config: Config{Transport: TransportHTTP, URL: crashingHTTP(t), Enabled: true}}}, Options{LogDir: logs})
	for tl, want := range map[string]string{
		"drop":   "the server ended its response stream without an answer: it crashed, restarted or dropped the request",
		"hangup": "the server closed the connection before answering: it crashed or was stopped",
	} {
		res := run(t, mustLookup(t, m, "h:"+tl), `{}`, nil)
		if res.Error == nil || !strings.Contains(res.Error.Message, `MCP server "h" (http://127.0.0.1:`) ||
			!strings.Contains(res.Error.Message, want) || !strings.Contains(res.Error.Message, "ollm mcp list") ||
			strings.Contains(res.Error.Message, "nil response") {
			t.Errorf("%s: %+v", tl, res.Error)
		}
	}
	m.Close()
	if stderr.Len() > 0 {
		t.Errorf("mcp-go logged to the default logger: %s", stderr)
	}
}

// server-everything over streamable HTTP killed after connecting: the next
// call says that nothing listens any more; mcp-go's own complaints are in
// the server's log file.
func TestEverythingHTTPKilled(t *testing.T) {
	stderr := captureDefaultLog(t)
	port := freePort(t)
	preload, _ := filepath.Abs(filepath.Join("testdata", "loopback.cjs"))
	cmd := exec.Command("node", "--require", preload, serverScript(t, "server-everything", "index.js"), "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	waitListening(t, "127.0.0.1:"+strconv.Itoa(port))
	logs := t.TempDir()
	m := startManager(t, []Spec{{Name: "ev", Config: Config{Transport: TransportHTTP, URL: url, Enabled: true}}}, Options{LogDir: logs})
	if st := m.Status()[0]; st.State != StateReady {
		t.Fatalf("%+v", st)
	}
	cmd.Process.Kill()
	cmd.Wait()
	inv, err := mustLookup(t, m, "ev:echo").Build([]byte(`{"message":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := inv.Execute(context.Background(), nil)
	// A new connection is refused; a kept-alive one the client reuses
	// before it has seen the kernel close it reads as a hang-up. Both
	// say the server is gone; which one is timing.
	if err != nil || res.Error == nil || !(strings.Contains(res.Error.Message, "nothing listens at its address any more (connection refused): the server is down") ||
		strings.Contains(res.Error.Message, "the server closed the connection before answering: it crashed or was stopped")) {
		t.Fatalf("%+v %v", res.Error, err)
	}
	m.Close()
	if stderr.Len() > 0 {
		t.Errorf("mcp-go logged to the default logger: %s", stderr)
	}
	// Close ends the session with a DELETE, which nothing answers: mcp-go
	// logs that, and the line is in the server's log file.
	if log := readFile(filepath.Join(logs, "mcp-ev.log")); !strings.Contains(log, `msg="failed to send close request"`) ||
		!strings.Contains(log, "server=ev") {
		t.Errorf("mcp-go's line is not in the server's log file:\n%s", log)
	}
}

// waitListening waits until something accepts connections at addr.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if i == 1500 {
			t.Fatalf("nothing listened on %s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
