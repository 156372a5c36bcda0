package mcp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// methods lists the methods a fault server's record says it received.
func methods(record string) []string {
	var out []string
	for _, line := range strings.Split(readFile(record), "\n") {
		if m, ok := strings.CutPrefix(line, "method "); ok && !strings.HasPrefix(m, "notifications/") {
			out = append(out, m)
		}
	}
	return out
}

// A server that answers every unknown method with {} is not taken for a
// 2026-07-28 server: its server/discover result lists no versions, so the
// client falls back to initialize and finds its tools.
func TestLenientServerGetsInitialize(t *testing.T) {
	for _, mode := range []string{"lenient", "otherversion"} {
		t.Run(mode, func(t *testing.T) {
			record := filepath.Join(t.TempDir(), "record")
			logs := t.TempDir()
			m := startManager(t, []Spec{faultSpec(t, "f", mode, "OLLM_MCP_FAULT_RECORD="+record)}, Options{LogDir: logs})
			st := m.Status()[0]
			if st.State != StateReady || st.Tools != 7 || st.Protocol != "2025-06-18" {
				t.Fatalf("status %+v", st)
			}
			if got := strings.Join(methods(record), " "); !strings.HasPrefix(got, "server/discover initialize tools/list") {
				t.Errorf("methods %q", got)
			}
			m.Close()
			if log := readFile(filepath.Join(logs, "mcp-f.log")); !strings.Contains(log, "server/discover result rejected") {
				t.Errorf("log %q", log)
			}
		})
	}
}

// A 2026-07-28 server connects through server/discover alone.
func TestModernServerNeedsNoInitialize(t *testing.T) {
	record := filepath.Join(t.TempDir(), "record")
	m := startManager(t, []Spec{faultSpec(t, "f", "modern", "OLLM_MCP_FAULT_RECORD="+record)}, Options{})
	if st := m.Status()[0]; st.State != StateReady || st.Tools != 7 || st.Protocol != "2026-07-28" {
		t.Fatalf("status %+v", st)
	}
	if got := strings.Join(methods(record), " "); got != "server/discover tools/list tools/list" {
		t.Errorf("methods %q", got)
	}
}

// A server remembered speaking the initialize handshake is not probed
// again; one that then refuses initialize (it moved to 2026-07-28) is
// probed and connects, and the cache follows.
func TestProtocolCacheSkipsTheProbe(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "protocols.json")
	record := filepath.Join(dir, "record")
	spec := faultSpec(t, "f", "normal", "OLLM_MCP_FAULT_RECORD="+record)

	m := startManager(t, []Spec{spec}, Options{ProtocolCache: cache})
	m.Close()
	if got := strings.Join(methods(record), " "); !strings.HasPrefix(got, "server/discover initialize") {
		t.Fatalf("first connection: methods %q", got)
	}
	if c := readFile(cache); !strings.Contains(c, `"protocol": "2025-06-18"`) || !strings.Contains(c, `"server": "f"`) {
		t.Fatalf("cache %q", c)
	}

	os.Remove(record)
	m = startManager(t, []Spec{spec}, Options{ProtocolCache: cache})
	if st := m.Status()[0]; st.State != StateReady || st.Protocol != "2025-06-18" {
		t.Fatalf("status %+v", st)
	}
	m.Close()
	if got := strings.Join(methods(record), " "); !strings.HasPrefix(got, "initialize tools/list") {
		t.Fatalf("second connection probed again: methods %q", got)
	}

	// The same command now speaks only 2026-07-28.
	os.Remove(record)
	spec.Config.Env["OLLM_MCP_FAULT"] = "modern-only"
	m = startManager(t, []Spec{spec}, Options{ProtocolCache: cache})
	if st := m.Status()[0]; st.State != StateReady || st.Protocol != "2026-07-28" {
		t.Fatalf("status %+v", st)
	}
	m.Close()
	if got := strings.Join(methods(record), " "); !strings.HasPrefix(got, "initialize server/discover tools/list") {
		t.Fatalf("methods %q", got)
	}
	if c := readFile(cache); !strings.Contains(c, `"protocol": "2026-07-28"`) {
		t.Fatalf("cache %q", c)
	}
}

// server-everything speaks 2025-11-25: the first connection learns it,
// the second starts with initialize.
func TestProtocolCacheEverything(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "protocols.json")
	for i := 0; i < 2; i++ {
		m := startManager(t, []Spec{everythingStdio(t, "everything")}, Options{ProtocolCache: cache})
		if st := m.Status()[0]; st.State != StateReady || st.Protocol != "2025-11-25" || st.Tools == 0 {
			t.Fatalf("connection %d: status %+v", i, st)
		}
		m.Close()
	}
	var f protocolFile
	if b, err := os.ReadFile(cache); err != nil || json.Unmarshal(b, &f) != nil || len(f.Servers) != 1 {
		t.Fatalf("cache %s %v", b, err)
	}
}

// lenientHTTP is a streamable HTTP server of the lenient kind: it answers
// initialize properly and every other request with {} (plain JSON).
func lenientHTTP(t *testing.T) (url string, seen func() []string) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg rpcMsg
		json.Unmarshal(body, &msg)
		got = append(got, msg.Method)
		if len(msg.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		result := any(map[string]any{})
		switch msg.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "lenient", "version": "1"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "ping", "inputSchema": map[string]any{"type": "object"}}}}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", func() []string { return got }
}

func TestLenientHTTPServerGetsInitialize(t *testing.T) {
	url, seen := lenientHTTP(t)
	m := startManager(t, []Spec{{Name: "h", Config: Config{Transport: TransportHTTP, URL: url, Enabled: true}}}, Options{})
	st := m.Status()[0]
	if st.State != StateReady || st.Tools != 1 || st.Protocol != "2025-03-26" {
		t.Fatalf("status %+v", st)
	}
	m.Close()
	if got := strings.Join(seen(), " "); !strings.HasPrefix(got, "server/discover initialize notifications/initialized tools/list") {
		t.Errorf("methods %q", got)
	}
}

func TestCheckDiscover(t *testing.T) {
	for _, tc := range []struct{ result, want string }{
		{`{"supportedVersions":["2026-07-28"],"capabilities":{}}`, ""},
		{`{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}}}`, ""},
		{`{}`, "no supportedVersions"},
		{`[]`, "not an object"},
		{`null`, "no supportedVersions"},
		{`{"supportedVersions":["2025-11-25"],"capabilities":{}}`, "do not include 2026-07-28"},
		{`{"supportedVersions":["2026-07-28"]}`, "no capabilities"},
		{`{"supportedVersions":["2026-07-28"],"capabilities":7}`, "no capabilities"},
	} {
		got := checkDiscover("2026-07-28", json.RawMessage(tc.result))
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("checkDiscover(%s) = %q, want %q", tc.result, got, tc.want)
		}
	}
}

// How a server takes the end of its stdin is learned: server-everything
// keeps running (it gets SIGTERM after the grace, and from the next time
// at once); the Go test server exits (it keeps its grace). The grace is
// long so that a slow exit under -race and load is not taken for ignoring.
func TestProtocolCacheLearnsEOF(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "protocols.json")
	for i := 0; i < 2; i++ {
		m := startManager(t, []Spec{everythingStdio(t, "ev"), faultSpec(t, "f", "normal")}, Options{ProtocolCache: cache, StopGrace: 2 * time.Second})
		m.Close()
	}
	var f protocolFile
	b, _ := os.ReadFile(cache)
	if json.Unmarshal(b, &f) != nil || len(f.Servers) != 2 {
		t.Fatalf("cache %s", b)
	}
	for _, e := range f.Servers {
		want := e.Server == "ev"
		if e.IgnoresEOF == nil || *e.IgnoresEOF != want {
			t.Errorf("%s: ignoresEOF %v, want %v", e.Server, e.IgnoresEOF, want)
		}
	}
}

// The roots capability is offered without listChanged: a server's roots
// are fixed for the Manager's life, so ollm never sends
// notifications/roots/list_changed and must not promise it.
func TestRootsOfferedWithoutListChanged(t *testing.T) {
	record := filepath.Join(t.TempDir(), "record")
	m := startManager(t, []Spec{faultSpec(t, "f", "normal", "OLLM_MCP_FAULT_RECORD="+record)}, Options{Roots: []string{t.TempDir()}})
	m.Close()
	var caps []string
	for _, line := range strings.Split(readFile(record), "\n") {
		if c, ok := strings.CutPrefix(line, "capabilities "); ok {
			caps = append(caps, c)
		}
	}
	if len(caps) != 1 {
		t.Fatalf("initialize capabilities %q", caps)
	}
	var c struct {
		Roots *map[string]any `json:"roots"`
	}
	if err := json.Unmarshal([]byte(caps[0]), &c); err != nil || c.Roots == nil {
		t.Fatalf("no roots capability in %s (%v)", caps[0], err)
	}
	if lc, ok := (*c.Roots)["listChanged"]; ok && lc != false {
		t.Errorf("roots capability %s promises listChanged", caps[0])
	}
}

// The protocol cache over streamable HTTP: server-everything behind a
// proxy that records every message. The first connection probes with
// server/discover and falls back to initialize; the second, the revision
// known, starts with initialize and never sends server/discover.
func TestProtocolCacheHTTP(t *testing.T) {
	p := newRecordingProxy(t, startEverythingHTTP(t, "streamableHttp"))
	spec := Spec{Name: "ev", Config: Config{Transport: TransportHTTP, URL: p.URL + "/mcp", Enabled: true}}
	cache := filepath.Join(t.TempDir(), "protocols.json")
	for i := 0; i < 2; i++ {
		m := startManager(t, []Spec{spec}, Options{ProtocolCache: cache})
		if st := m.Status()[0]; st.State != StateReady || st.Protocol != "2025-11-25" || st.Tools == 0 {
			t.Fatalf("connection %d: status %+v", i, st)
		}
		m.Close()
		got := methodsOf(p.take())
		switch {
		case i == 0 && !strings.HasPrefix(got, "server/discover initialize "):
			t.Fatalf("first connection: methods %q", got)
		case i == 1 && (!strings.HasPrefix(got, "initialize ") || strings.Contains(got, "server/discover")):
			t.Fatalf("second connection probed again: methods %q", got)
		}
		if c := readFile(cache); !strings.Contains(c, `"protocol": "2025-11-25"`) || !strings.Contains(c, `"server": "ev"`) {
			t.Fatalf("connection %d: cache %q", i, c)
		}
	}
}
