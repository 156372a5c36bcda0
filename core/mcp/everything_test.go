package mcp

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollm/ollm/core/tool"
)

// freePort asks the kernel for a free loopback port.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEverythingHTTP runs server-everything with mode ("sse" or
// "streamableHttp") on a loopback port and returns its base URL.
func startEverythingHTTP(t testing.TB, mode string) string {
	t.Helper()
	port := freePort(t)
	preload, _ := filepath.Abs(filepath.Join("testdata", "loopback.cjs"))
	cmd := exec.Command("node", "--require", preload, serverScript(t, "server-everything", "index.js"), mode)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.Stderr = &strings.Builder{}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return "http://" + addr
		}
		if i == 1500 {
			t.Fatalf("server-everything %s never listened on %s: %s", mode, addr, cmd.Stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func everythingSpecs(t *testing.T) map[string]Spec {
	return map[string]Spec{
		"stdio": everythingStdio(t, "everything"),
		"sse":   {Name: "everything", Config: Config{Transport: TransportSSE, URL: startEverythingHTTP(t, "sse") + "/sse", Enabled: true}},
		"http":  {Name: "everything", Config: Config{Transport: TransportHTTP, URL: startEverythingHTTP(t, "streamableHttp") + "/mcp", Enabled: true}},
	}
}

func TestEverything(t *testing.T) {
	for transport, spec := range everythingSpecs(t) {
		t.Run(transport, func(t *testing.T) {
			var elicited []Elicitation
			var mu sync.Mutex
			ev := newEvents()
			m := startManager(t, []Spec{spec}, Options{
				OnEvent: ev.add,
				Elicit: func(ctx context.Context, e Elicitation) (ElicitationReply, error) {
					mu.Lock()
					elicited = append(elicited, e)
					mu.Unlock()
					return ElicitationReply{Action: ElicitAccept, Content: map[string]any{"name": "Ada", "check": true}}, nil
				},
			})
			if st := m.Status()[0]; st.State != StateReady || st.Transport != transport {
				t.Fatalf("status %+v", st)
			}
			if transport == "sse" {
				// mcp-go's SSE transport cannot answer server requests, so
				// elicitation is not offered and the server hides the tool.
				everythingCalls(t, m, false)
				if _, ok := m.Lookup("trigger-elicitation-request"); ok {
					t.Error("elicitation tool offered over SSE")
				}
				return
			}
			// Conditional tools arrive with tools/list_changed after initialize.
			ev.wait(t, "elicitation tool", func(e Event) bool { return contains(toolNames(e.Tools), "trigger-elicitation-request") })
			everythingCalls(t, m, true)
			mu.Lock()
			defer mu.Unlock()
			if len(elicited) != 1 || elicited[0].Server != "everything" || !strings.Contains(string(elicited[0].Schema), "properties") {
				t.Errorf("elicitations %+v", elicited)
			}
		})
	}
}

func everythingCalls(t *testing.T, m *Manager, elicitation bool) {
	t.Run("echo", func(t *testing.T) {
		res := run(t, mustLookup(t, m, "echo"), `{"message":"hello MCP"}`, nil)
		if res.Error != nil || res.ForModel != "Echo: hello MCP" {
			t.Errorf("%+v", res)
		}
		if _, err := mustLookup(t, m, "echo").Build([]byte(`{}`)); err == nil || !strings.Contains(err.Error(), "message") {
			t.Errorf("missing required parameter: %v", err)
		}
	})
	t.Run("get-sum", func(t *testing.T) {
		if res := run(t, mustLookup(t, m, "get-sum"), `{"a":19,"b":23}`, nil); !strings.Contains(res.ForModel, "42") {
			t.Errorf("%+v", res)
		}
	})
	t.Run("long-running progress", func(t *testing.T) {
		var chunks []tool.Chunk
		res := run(t, mustLookup(t, m, "trigger-long-running-operation"), `{"duration":0.3,"steps":3}`, func(c tool.Chunk) { chunks = append(chunks, c) })
		if res.Error != nil || !strings.Contains(res.ForModel, "completed") {
			t.Errorf("%+v", res)
		}
		if len(chunks) != 3 || chunks[2].Progress != 3 || chunks[2].Total != 3 {
			t.Errorf("progress %+v", chunks)
		}
	})
	t.Run("tiny image", func(t *testing.T) {
		res := run(t, mustLookup(t, m, "get-tiny-image"), `{}`, nil)
		if !strings.Contains(res.ForModel, "[image: image/png, ") {
			t.Errorf("%+v", res)
		}
	})
	t.Run("structured content", func(t *testing.T) {
		res := run(t, mustLookup(t, m, "get-structured-content"), `{"location":"Chicago"}`, nil)
		b, _ := json.Marshal(res.Data)
		if res.Error != nil || !strings.Contains(string(b), `"temperature":36`) || !strings.Contains(res.ForModel, "36") {
			t.Errorf("data %s result %+v", b, res)
		}
	})
	t.Run("annotated message", func(t *testing.T) {
		res := run(t, mustLookup(t, m, "get-annotated-message"), `{"messageType":"success","includeImage":true}`, nil)
		if res.ForModel != "" || !strings.Contains(res.Display, "Operation completed successfully") || !strings.Contains(res.Display, "[image: image/png") {
			t.Errorf("user-only content: model %q display %q", res.ForModel, res.Display)
		}
		res = run(t, mustLookup(t, m, "get-annotated-message"), `{"messageType":"debug"}`, nil)
		if !strings.Contains(res.ForModel, "Cache hit ratio") || res.Display != "" {
			t.Errorf("assistant-only content: model %q display %q", res.ForModel, res.Display)
		}
		if k := mustLookup(t, m, "get-annotated-message").Kind(); k != tool.KindRead {
			t.Errorf("readOnlyHint: kind %s", k)
		}
	})
	if !elicitation {
		return
	}
	t.Run("elicitation", func(t *testing.T) {
		res := run(t, mustLookup(t, m, "trigger-elicitation-request"), `{}`, nil)
		if !strings.Contains(res.ForModel, "Name: Ada") || !strings.Contains(res.ForModel, "Agreed to terms: true") {
			t.Errorf("%+v", res)
		}
	})
}

func TestElicitationDeclinedWithoutTerminal(t *testing.T) {
	ev := newEvents()
	m := startManager(t, []Spec{everythingStdio(t, "everything")}, Options{OnEvent: ev.add})
	ev.wait(t, "elicitation tool", func(e Event) bool { return contains(toolNames(e.Tools), "trigger-elicitation-request") })
	res := run(t, mustLookup(t, m, "trigger-elicitation-request"), `{}`, nil)
	if !strings.Contains(res.ForModel, "declined") {
		t.Errorf("%+v", res)
	}
}

func TestFilesystemStdio(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	spec := Spec{Name: "fs", Config: Config{Command: "node", Args: []string{serverScript(t, "server-filesystem", "index.js"), root}, Enabled: true}}
	m := startManager(t, []Spec{spec}, Options{Roots: []string{root}})
	res := run(t, mustLookup(t, m, "read_text_file"), `{"path":"`+filepath.Join(root, "notes.txt")+`"}`, nil)
	if res.Error != nil || !strings.Contains(res.ForModel, "remember the milk") {
		t.Errorf("read: %+v", res)
	}
	res = run(t, mustLookup(t, m, "list_directory"), `{"path":"`+root+`"}`, nil)
	if !strings.Contains(res.ForModel, "[FILE] notes.txt") || !strings.Contains(res.ForModel, "[DIR] sub") {
		t.Errorf("list: %+v", res)
	}
	res = run(t, mustLookup(t, m, "read_text_file"), `{"path":"/etc/passwd"}`, nil)
	if res.Error == nil || !strings.Contains(res.Error.Message, "denied") {
		t.Errorf("outside the root: %+v", res)
	}
	if k := mustLookup(t, m, "write_file").(tool.Annotated).Annotations(); k.Server != "fs" {
		t.Errorf("annotations %+v", k)
	}
}
