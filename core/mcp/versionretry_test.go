package mcp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// versionRejectingHTTP is a 2026-07-28 server over streamable HTTP that
// refuses the first request it gets with 400 and -32022 (unsupported
// protocol version, naming 2026-07-28 as supported), as a server does
// whose supported versions changed or that a proxy confused, and records
// each POST's method, MCP-Protocol-Version header and _meta version.
func versionRejectingHTTP(t *testing.T) (url string, seen func() []string) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		metaVersion, _ := msg.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
		_, caps := msg.Params.Meta["io.modelcontextprotocol/clientCapabilities"].(map[string]any)
		mu.Lock()
		first := len(got) == 0
		got = append(got, msg.Method+" header="+r.Header.Get("MCP-Protocol-Version")+" meta="+metaVersion+map[bool]string{true: " caps", false: ""}[caps])
		mu.Unlock()
		if len(msg.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if first {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{
				"code": -32022, "message": "Unsupported protocol version",
				"data": map[string]any{"supported": []string{"2026-07-28"}, "requested": r.Header.Get("MCP-Protocol-Version")}}})
			return
		}
		var result any = map[string]any{}
		switch msg.Method {
		case "server/discover":
			result = map[string]any{"supportedVersions": []string{"2026-07-28"}, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "picky", "version": "1"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "ping", "inputSchema": map[string]any{"type": "object"}}}}
		case "tools/call":
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "pong"}}}
		}
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// TestUnsupportedVersionRetried: a server/discover refused with -32022
// whose supported versions include the one asked for is sent again with
// that version, header and _meta agreeing, instead of falling back to an
// initialize the server does not speak; every later request carries both.
func TestUnsupportedVersionRetried(t *testing.T) {
	url, seen := versionRejectingHTTP(t)
	m := startManager(t, []Spec{{Name: "picky", Config: Config{URL: url, Enabled: true}}}, Options{})
	if st := m.Status()[0]; st.State != StateReady || st.Protocol != "2026-07-28" {
		t.Fatalf("status %+v; requests %q", st, seen())
	}
	if res := run(t, mustLookup(t, m, "picky:ping"), `{}`, nil); res.ForModel != "pong" {
		t.Fatalf("%+v", res)
	}
	got := seen()
	if len(got) < 4 {
		t.Fatalf("requests %q", got)
	}
	if want := "server/discover header=2026-07-28 meta=2026-07-28 caps"; got[0] != want || got[1] != want {
		t.Errorf("first two requests %q, want the probe and its retry as %q", got[:2], want)
	}
	for _, r := range got {
		if strings.HasPrefix(r, "initialize") {
			t.Errorf("fell back to initialize: %q", got)
		}
		if !strings.Contains(r, "header=2026-07-28 meta=2026-07-28 caps") {
			t.Errorf("request without version header or _meta: %q", r)
		}
	}
}
