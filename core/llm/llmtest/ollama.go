package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ollm/ollm/schema"
)

// Version is what the fake Ollama's /api/version reports.
const Version = "0.17.4"

// Ollama is a scripted fake Ollama server.
type Ollama struct {
	*script
	Server *httptest.Server
	URL    string

	pulls pulls // models /api/pull can download (ollama_pull.go)

	reqMu    sync.Mutex // guards requests and the settings below
	requests []ChatRequest
}

// NewOllama starts a fake Ollama on the loopback interface with
// DefaultModel installed; it stops when the test ends.
func NewOllama(t testing.TB) *Ollama {
	s := &Ollama{script: newScript(t)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.chat)
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("GET /api/tags", s.tags)
	mux.HandleFunc("GET /api/ps", s.ps)
	mux.HandleFunc("POST /api/pull", s.pull)
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	})
	s.Server = httptest.NewServer(mux)
	s.URL = s.Server.URL
	s.cleanup(s.Server.Close)
	return s
}

// ModelConfig is the profile model section that points at this server.
func (s *Ollama) ModelConfig() schema.Model {
	return schema.Model{Provider: "ollama", Name: DefaultModel, Endpoint: s.URL}
}

// Requests returns every /api/chat request received, in order.
func (s *Ollama) Requests() []ChatRequest {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	return append([]ChatRequest(nil), s.requests...)
}

// LastRequest returns the latest /api/chat request; it fails the test when
// there was none.
func (s *Ollama) LastRequest() ChatRequest {
	s.t.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		s.t.Fatalf("llmtest: no /api/chat request was received")
	}
	return reqs[len(reqs)-1]
}

func (s *Ollama) chat(w http.ResponseWriter, r *http.Request) {
	var req ChatRequest
	if !s.decode(w, r, &req) {
		return
	}
	s.reqMu.Lock()
	s.requests = append(s.requests, req)
	s.reqMu.Unlock()
	if _, ok := s.model(req.Model); !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model '%s' not found", req.Model)})
		return
	}
	steps, n, ok := s.next()
	if !ok {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": fmt.Sprintf("llmtest: no reply queued for request #%d", n)})
		return
	}
	s.stream(w, r, req, steps)
}

func (s *Ollama) decode(w http.ResponseWriter, r *http.Request, v interface{ setRaw([]byte) }) bool {
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, v)
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return false
	}
	v.setRaw(body)
	return true
}

// stream writes the scripted steps as /api/chat NDJSON.
func (s *Ollama) stream(w http.ResponseWriter, r *http.Request, req ChatRequest, steps []Step) {
	if len(steps) > 0 && steps[0].kind == stepHTTPError {
		writeJSON(w, steps[0].status, map[string]string{"error": steps[0].msg})
		return
	}
	out := &ndjson{w: w, model: req.Model}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rep := reply{prompt: promptTokens(req.contents())}
	rep.settle(steps)
	for _, st := range steps {
		if !s.step(out, r, st, &rep) {
			return
		}
	}
	out.done(rep)
}

// step writes one step and reports whether the reply goes on.
func (s *Ollama) step(out *ndjson, r *http.Request, st Step, rep *reply) bool {
	switch st.kind {
	case stepText, stepThinking:
		for _, c := range st.chunks {
			m := ollamaMessage{Role: "assistant"}
			if st.kind == stepText {
				m.Content = c
			} else {
				m.Thinking = c
			}
			out.write(ollamaChunk{Message: m})
			rep.counted++
		}
	case stepToolCall:
		out.write(ollamaChunk{Message: ollamaMessage{Role: "assistant", ToolCalls: []WireToolCall{s.toolCall(st, rep.calls)}}})
		rep.counted++
		rep.calls++
	case stepStreamError:
		out.write(map[string]string{"error": st.msg})
		return false
	case stepRaw:
		out.raw(st.msg)
	case stepPause:
		time.Sleep(st.pause)
	case stepHang:
		s.hold(r, nil)
		return false
	case stepWait:
		return s.hold(r, st.wait)
	case stepDrop:
		panic(http.ErrAbortHandler)
	case stepEnd:
		return false
	case stepSignal:
		close(st.signal)
	}
	return true
}

func (s *Ollama) toolCall(st Step, index int) WireToolCall {
	id := st.call.ID
	if id == "" && !st.noID {
		id = s.nextCallID()
	}
	args := st.call.Args
	if args == nil {
		args = map[string]any{}
	}
	return WireToolCall{ID: id, Function: WireFunction{Index: index, Name: st.call.Name, Arguments: args}}
}

func (s *Ollama) show(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	m, ok := s.model(name)
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model '%s' not found", name)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"modelfile":    "FROM " + m.Name,
		"parameters":   "",
		"template":     "{{ .Prompt }}",
		"details":      details(m),
		"model_info":   map[string]any{"general.architecture": m.Family, "general.parameter_count": 8030261248, m.Family + ".context_length": m.ContextLength, m.Family + ".embedding_length": 4096},
		"capabilities": m.Capabilities,
		"modified_at":  modified,
	})
}

func (s *Ollama) tags(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	models := []map[string]any{}
	for _, name := range sortedNames(s.models) {
		m := s.models[name]
		models = append(models, map[string]any{"name": name, "model": name, "modified_at": modified, "size": m.Size, "digest": digest(name), "details": details(m)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}

func (s *Ollama) ps(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	models := []map[string]any{}
	for _, name := range sortedNames(s.running) {
		m := s.models[name]
		models = append(models, map[string]any{"name": name, "model": name, "size": 6654289920, "digest": digest(name),
			"details": details(m), "expires_at": modified.Add(5 * time.Minute), "size_vram": 6654289920, "context_length": s.running[name]})
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}
