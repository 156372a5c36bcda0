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

// OpenAI is a scripted fake OpenAI-compatible server: /v1/chat/completions
// streamed as server-sent events, and /v1/models.
type OpenAI struct {
	*script
	Server *httptest.Server
	URL    string // the base URL, ending in /v1

	reqMu    sync.Mutex // guards requests and the settings below
	requests []OpenAIRequest
	key      string
	argPiece int
}

// NewOpenAI starts a fake OpenAI-compatible server on the loopback
// interface; it stops when the test ends. Tool call arguments are sent in
// pieces of 4 bytes unless SplitArguments says otherwise.
func NewOpenAI(t testing.TB) *OpenAI {
	s := &OpenAI{script: newScript(t), argPiece: 4}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.list)
	s.Server = httptest.NewServer(mux)
	s.URL = s.Server.URL + "/v1"
	s.cleanup(s.Server.Close)
	return s
}

// ModelConfig is the profile model section that points at this server.
func (s *OpenAI) ModelConfig() schema.Model {
	return schema.Model{Provider: "openai", Name: DefaultModel, Endpoint: s.URL}
}

// RequireKey makes the server answer 401 unless the request carries
// "Authorization: Bearer <key>".
func (s *OpenAI) RequireKey(key string) {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	s.key = key
}

// SplitArguments sets how many bytes of tool call arguments go in each
// delta (at least 1).
func (s *OpenAI) SplitArguments(n int) {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	s.argPiece = max(n, 1)
}

// Requests returns every chat completion request received, in order.
func (s *OpenAI) Requests() []OpenAIRequest {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	return append([]OpenAIRequest(nil), s.requests...)
}

// LastRequest returns the latest request; it fails the test when there
// was none.
func (s *OpenAI) LastRequest() OpenAIRequest {
	s.t.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		s.t.Fatalf("llmtest: no /v1/chat/completions request was received")
	}
	return reqs[len(reqs)-1]
}

func (s *OpenAI) chat(w http.ResponseWriter, r *http.Request) {
	req, err := decodeOpenAI(r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, oaErrorBody(err.Error(), "invalid_request_error", nil))
		return
	}
	s.reqMu.Lock()
	s.requests = append(s.requests, req)
	key, piece := s.key, s.argPiece
	s.reqMu.Unlock()
	if key != "" && req.Authorization != "Bearer "+key {
		writeJSON(w, http.StatusUnauthorized, oaErrorBody("Incorrect API key provided", "invalid_request_error", "invalid_api_key"))
		return
	}
	if _, ok := s.model(req.Model); !ok {
		writeJSON(w, http.StatusNotFound, oaErrorBody(fmt.Sprintf("The model `%s` does not exist", req.Model), "invalid_request_error", "model_not_found"))
		return
	}
	steps, n, ok := s.next()
	if !ok {
		writeJSON(w, http.StatusInternalServerError, oaErrorBody(fmt.Sprintf("llmtest: no reply queued for request #%d", n), "server_error", nil))
		return
	}
	s.stream(w, r, req, steps, &sse{w: w, id: fmt.Sprintf("chatcmpl-llmtest-%d", n), model: req.Model, piece: piece})
}

func decodeOpenAI(r *http.Request) (OpenAIRequest, error) {
	var req OpenAIRequest
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return req, err
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return req, err
	}
	if err := json.Unmarshal(body, &req.Body); err != nil {
		return req, err
	}
	req.Raw, req.Authorization = body, r.Header.Get("Authorization")
	return req, nil
}

// stream writes the scripted steps as chat completion chunks.
func (s *OpenAI) stream(w http.ResponseWriter, r *http.Request, req OpenAIRequest, steps []Step, out *sse) {
	if len(steps) > 0 && steps[0].kind == stepHTTPError {
		writeJSON(w, steps[0].status, oaErrorBody(steps[0].msg, "server_error", nil))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rep := reply{prompt: promptTokens(req.contents())}
	rep.settle(steps)
	out.delta(map[string]any{"role": "assistant", "content": ""})
	for _, st := range steps {
		if !s.step(out, r, st, &rep) {
			return
		}
	}
	out.finish(rep, req.StreamOptions.IncludeUsage)
}

// step writes one step and reports whether the reply goes on.
func (s *OpenAI) step(out *sse, r *http.Request, st Step, rep *reply) bool {
	switch st.kind {
	case stepText, stepThinking:
		key := "content"
		if st.kind == stepThinking {
			key = "reasoning_content"
		}
		for _, c := range st.chunks {
			out.delta(map[string]any{key: c})
			rep.counted++
		}
	case stepToolCall:
		id := st.call.ID
		if id == "" && !st.noID {
			id = s.nextCallID()
		}
		out.toolCall(rep.calls, id, st.call)
		rep.counted++
		rep.calls++
	case stepStreamError:
		out.event(oaErrorBody(st.msg, "server_error", nil))
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

func (s *OpenAI) list(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data := []map[string]any{}
	for _, name := range sortedNames(s.models) {
		data = append(data, map[string]any{"id": name, "object": "model", "created": modified.Unix(), "owned_by": "llmtest"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func oaErrorBody(msg, typ string, code any) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}}
}
