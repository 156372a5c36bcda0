package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// httpFault is a small MCP server over HTTP, written by hand so that its
// 50 MB answer is streamed (the server allocates almost nothing, so the
// test's allocation figure is the client's). It speaks streamable HTTP on
// /mcp, answering in application/json or, with sse set, in an event
// stream, and the older SSE transport on /sse + /message.
type httpFault struct {
	sse bool // streamable HTTP answers as text/event-stream

	mu      sync.Mutex
	streams chan func(w io.Writer) // messages for the open /sse stream
}

func startHTTPFault(t testing.TB, sse bool) string {
	f := &httpFault{sse: sse, streams: make(chan func(io.Writer), 16)}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", f.streamable)
	mux.HandleFunc("GET /sse", f.sseStream)
	mux.HandleFunc("POST /message", f.sseMessage)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// answer writes the answer to one request to w; false means no answer
// (a notification).
func (f *httpFault) answer(m rpcMsg) (func(w io.Writer), bool) {
	if len(m.ID) == 0 {
		return nil, false
	}
	var result any
	switch m.Method {
	case "initialize":
		result = map[string]any{
			"protocolVersion": "2025-06-18",
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "httpfault", "version": "1"},
		}
	case "tools/list":
		result = map[string]any{"tools": []any{
			map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}},
			map[string]any{"name": "huge", "inputSchema": map[string]any{"type": "object"}},
		}}
	case "tools/call":
		var p struct {
			Name      string
			Arguments struct{ Text string }
		}
		json.Unmarshal(m.Params, &p)
		if p.Name == "huge" {
			return func(w io.Writer) { writeHuge(w, m.ID) }, true
		}
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": p.Arguments.Text}}}
	default:
		return func(w io.Writer) {
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
		}, true
	}
	return func(w io.Writer) {
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	}, true
}

// writeHuge writes a 50 MB tools/call result with id.
func writeHuge(w io.Writer, id json.RawMessage) {
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprint(bw, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"BEGIN `)
	chunk := strings.Repeat("0123456789abcdef", 4096)
	for n := 0; n < 50<<20; n += len(chunk) {
		bw.WriteString(chunk)
	}
	fmt.Fprintf(bw, ` END"}]},"id":%s}`+"\n", id)
	bw.Flush()
}

func (f *httpFault) streamable(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var m rpcMsg
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	write, ok := f.answer(m)
	if !ok {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if !f.sse {
		w.Header().Set("Content-Type", "application/json")
		write(w)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "event: message\ndata: ")
	write(w) // ends with a newline; one more ends the event
	io.WriteString(w, "\n")
}

func (f *httpFault) sseStream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "event: endpoint\ndata: /message\n\n")
	w.(http.Flusher).Flush()
	for {
		select {
		case write := <-f.streams:
			io.WriteString(w, "event: message\ndata: ")
			write(w)
			io.WriteString(w, "\n")
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

func (f *httpFault) sseMessage(w http.ResponseWriter, r *http.Request) {
	var m rpcMsg
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if write, ok := f.answer(m); ok {
		f.streams <- write
	}
	w.WriteHeader(http.StatusAccepted)
}

// TestHugeResultOverHTTPIsTruncatedInBoundedMemory sends a 50 MB result
// over streamable HTTP (as a JSON body and as an event stream) and over
// SSE; each is replaced by its start and a note, the client allocates a
// fraction of it, and the connection keeps working.
func TestHugeResultOverHTTPIsTruncatedInBoundedMemory(t *testing.T) {
	specs := map[string]Spec{
		"http-json": {Name: "hj", Config: Config{Transport: TransportHTTP, URL: startHTTPFault(t, false) + "/mcp", Enabled: true}},
		"http-sse":  {Name: "hs", Config: Config{Transport: TransportHTTP, URL: startHTTPFault(t, true) + "/mcp", Enabled: true}},
		"sse":       {Name: "ss", Config: Config{Transport: TransportSSE, URL: startHTTPFault(t, false) + "/sse", Enabled: true}},
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			m := startManager(t, []Spec{spec}, Options{MaxMessageBytes: 1 << 20})
			if st := statusOf(m, spec.Name); st.State != StateReady {
				t.Fatalf("%+v", st)
			}
			huge := mustLookup(t, m, "huge")
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res := run(t, huge, `{}`, nil)
			runtime.ReadMemStats(&after)
			if res.Error != nil || !strings.HasPrefix(res.ForModel, "BEGIN 0123456789abcdef") || !strings.Contains(res.ForModel, "truncated") {
				t.Fatalf("result %+v %.200q", res.Error, res.ForModel)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("client allocated %.1f MB for the 50 MB result", float64(alloc)/(1<<20))
			if alloc > 20<<20 {
				t.Errorf("a 50 MB result allocated %d MB", alloc>>20)
			}
			if res := run(t, mustLookup(t, m, "echo"), `{"text":"next"}`, nil); res.ForModel != "next" {
				t.Errorf("connection unusable after the huge result: %+v", res)
			}
		})
	}
}
