package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// cuttingProxy stands between ollm and a real server. It ends the first
// GET stream right after the first event that carries data, after telling
// the client to come back after 20 ms (retry), and records the
// Last-Event-ID of every GET. A GET with Last-Event-ID is held until the
// client's answers have been forwarded, so what the server sent in the
// meantime can only come back by replay.
type cuttingProxy struct {
	upstream *url.URL
	rp       *httputil.ReverseProxy

	mu        sync.Mutex
	gets      []string // Last-Event-ID of each GET, "" for none
	firstID   string   // the id of the event the first stream ended after
	answered  chan struct{}
	answerOne sync.Once
}

func newCuttingProxy(t *testing.T, upstream string) *cuttingProxy {
	u, _ := url.Parse(upstream)
	p := &cuttingProxy{upstream: u, rp: httputil.NewSingleHostReverseProxy(u), answered: make(chan struct{})}
	p.rp.FlushInterval = -1
	return p
}

func (p *cuttingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		p.rp.ServeHTTP(w, r)
		if bytes.Contains(body, []byte(`"roots"`)) { // our answer to roots/list
			p.answerOne.Do(func() { close(p.answered) })
		}
		return
	}
	if r.Method != http.MethodGet {
		p.rp.ServeHTTP(w, r)
		return
	}
	last := r.Header.Get("Last-Event-ID")
	p.mu.Lock()
	first := len(p.gets) == 0
	p.gets = append(p.gets, last)
	p.mu.Unlock()
	if !first {
		if last != "" {
			<-p.answered
			time.Sleep(200 * time.Millisecond) // the server logs "Roots updated" right after the answer
		}
		p.rp.ServeHTTP(w, r)
		return
	}
	req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, p.upstream.String()+r.URL.Path, nil)
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.WriteString(w, "retry: 20\n\n")
	in := bufio.NewReader(resp.Body)
	var event strings.Builder
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return
		}
		event.WriteString(line)
		if strings.TrimSpace(line) != "" {
			continue
		}
		ev := event.String()
		event.Reset()
		io.WriteString(w, ev)
		w.(http.Flusher).Flush()
		if strings.Contains(ev, "\ndata: {") || strings.HasPrefix(ev, "data: {") {
			for _, l := range strings.Split(ev, "\n") {
				if id, ok := strings.CutPrefix(l, "id: "); ok {
					p.mu.Lock()
					p.firstID = id
					p.mu.Unlock()
				}
			}
			return // the stream ends here
		}
	}
}

// server-everything asks for the roots on the GET stream 350 ms after
// initialize, outside any call of ours. The stream is cut right after that
// request; ollm answers it, opens the stream again with Last-Event-ID, and
// gets the log message the server sent meanwhile by replay.
func TestGetStreamAnswersAndResumes(t *testing.T) {
	upstream := startEverythingHTTP(t, "streamableHttp")
	p := newCuttingProxy(t, upstream)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	root := t.TempDir()
	logs := t.TempDir()
	m := startManager(t, []Spec{{Name: "ev", Config: Config{Transport: TransportHTTP, URL: srv.URL + "/mcp", Enabled: true}}},
		Options{LogDir: logs, Roots: []string{root}})
	if st := m.Status()[0]; st.State != StateReady || st.Protocol != "2025-11-25" {
		t.Fatalf("%+v", st)
	}
	log := filepath.Join(logs, "mcp-ev.log")
	waitFile(t, log, "Roots updated: 1 root(s) received from client")

	res := run(t, mustLookup(t, m, "ev:get-roots-list"), `{}`, nil)
	if res.Error != nil || !strings.Contains(res.ForModel, "file://"+root) {
		t.Fatalf("get-roots-list: %+v", res)
	}
	p.mu.Lock()
	gets, firstID := append([]string(nil), p.gets...), p.firstID
	p.mu.Unlock()
	if firstID == "" || len(gets) < 2 || gets[0] != "" || gets[1] != firstID {
		t.Fatalf("GETs with Last-Event-ID %q, the first stream ended after event %q", gets, firstID)
	}
	if data, _ := os.ReadFile(log); strings.Contains(string(data), "level=ERROR") {
		t.Errorf("errors in the log:\n%s", data)
	}
}

func TestSSEReader(t *testing.T) {
	in := "retry: 50\n\n: keep-alive\n\nid: 1\nevent: message\ndata: {\"a\":\ndata: 1}\n\nid: 2\ndata:x\r\n\r\nid: bad\x00id\ndata: y\n\nid: 3\n\ndata: last"
	r := &sseReader{r: bufio.NewReader(strings.NewReader(in))}
	var got []string
	for {
		ev, err := r.next()
		if ev.hasID || ev.Data != "" {
			got = append(got, ev.ID+"|"+ev.Event+"|"+ev.Data)
		}
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
	}
	want := []string{"1|message|{\"a\":\n1}", "2||x", "||y", "3||", "||last"}
	if strings.Join(got, ";") != strings.Join(want, ";") || r.retry != 50*time.Millisecond {
		t.Errorf("got %q retry %v, want %q", got, r.retry, want)
	}
}

// streamServer is a streamable HTTP server (2025-06-18) whose GET stream
// sends one event, with a retry field when retry is set, and ends. Its
// first GET is held until hold is closed, when hold is set; ended is
// closed when the first stream has ended.
type streamServer struct {
	retry string
	hold  chan struct{}
	ended chan struct{}
	once  sync.Once

	mu   sync.Mutex
	gets []string // Last-Event-ID of each GET
}

func (s *streamServer) start(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			s.mu.Lock()
			s.gets = append(s.gets, r.Header.Get("Last-Event-ID"))
			n := len(s.gets)
			s.mu.Unlock()
			if n == 1 && s.hold != nil {
				select {
				case <-s.hold:
				case <-r.Context().Done():
					return
				}
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			if s.retry != "" {
				io.WriteString(w, "retry: "+s.retry+"\n")
			}
			io.WriteString(w, "id: "+strconv.Itoa(n)+"\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"stream "+strconv.Itoa(n)+"\"}}\n\n")
			w.(http.Flusher).Flush()
			if n == 1 {
				defer s.once.Do(func() { close(s.ended) })
			}
			return // the stream ends
		case http.MethodPost:
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m rpcMsg
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &m)
		if len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
		switch m.Method {
		case "initialize":
			reply["result"] = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "stream", "version": "1"}}
		case "tools/list":
			reply["result"] = map[string]any{"tools": []any{}}
		default:
			reply["error"] = map[string]any{"code": -32601, "message": "method not found: " + m.Method}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(reply)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func (s *streamServer) getsSeen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.gets...)
}

// The GET stream is opened again after the delay the server's retry field
// asks for, not the default second. Two servers in one Manager: "slow"
// ends its first stream with retry 10 minutes; "fast" sends no retry
// field (the default, one second) and starts its first stream only after
// slow's has ended. Once fast has reconnected twice (two default delays
// after slow's stream ended), slow must not have reconnected yet. No
// clock is read: fast's reconnections are the measure.
func TestGetStreamHonoursRetry(t *testing.T) {
	slow := &streamServer{retry: "600000", ended: make(chan struct{})}
	fast := &streamServer{hold: slow.ended, ended: make(chan struct{})}
	slowURL, fastURL := slow.start(t), fast.start(t)
	m := startManager(t, []Spec{
		{Name: "slow", Config: Config{Transport: TransportHTTP, URL: slowURL, Enabled: true}},
		{Name: "fast", Config: Config{Transport: TransportHTTP, URL: fastURL, Enabled: true}},
	}, Options{})
	for _, st := range m.Status() {
		if st.State != StateReady || st.Protocol != "2025-06-18" {
			t.Fatalf("%+v", st)
		}
	}
	deadline := time.Now().Add(2 * time.Minute) // only a bound for failing, never reached when it works
	for len(fast.getsSeen()) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("fast never reconnected twice: GETs %q", fast.getsSeen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if gets := slow.getsSeen(); len(gets) != 1 {
		t.Errorf("slow (retry: 600000) reconnected while fast (no retry field) reconnected twice: slow's GETs %q", gets)
	}
	if gets := fast.getsSeen(); strings.Join(gets[:3], ",") != ",1,2" {
		t.Errorf("fast's GETs carried Last-Event-ID %q, want \"\", \"1\", \"2\"", gets)
	}
}
