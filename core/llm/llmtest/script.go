package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// DefaultModel is installed on every fake server.
const DefaultModel = "test-model"

// Model is a model a fake server has installed.
type Model struct {
	Name          string
	Family        string   // default "llama"
	ContextLength int      // trained context, default 8192
	ParameterSize string   // default "8.0B"
	Quantization  string   // default "Q4_K_M"
	Size          int64    // bytes /api/tags reports, default 4920753328
	Capabilities  []string // default completion, tools
}

func (m Model) withDefaults() Model {
	if m.Family == "" {
		m.Family = "llama"
	}
	if m.ContextLength == 0 {
		m.ContextLength = 8192
	}
	if m.ParameterSize == "" {
		m.ParameterSize = "8.0B"
	}
	if m.Quantization == "" {
		m.Quantization = "Q4_K_M"
	}
	if m.Size == 0 {
		m.Size = 4920753328
	}
	if m.Capabilities == nil {
		m.Capabilities = []string{"completion", "tools"}
	}
	return m
}

// script is what both fakes share: the queue of replies, the installed
// models and the bookkeeping of disconnects.
type script struct {
	t       testing.TB
	mu      sync.Mutex
	replies [][]Step
	served  int
	models  map[string]Model // by name with tag
	running map[string]int   // loaded models and their context length
	calls   int              // tool call ids handed out
	quit    chan struct{}
	gone    chan struct{}
}

func newScript(t testing.TB) *script {
	s := &script{t: t, models: map[string]Model{}, running: map[string]int{},
		quit: make(chan struct{}), gone: make(chan struct{}, 64)}
	s.addModel(Model{Name: DefaultModel})
	return s
}

// Reply queues one reply; each request takes the oldest one left.
func (s *script) Reply(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, steps)
}

// Pending is the number of queued replies no request has taken yet.
func (s *script) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies)
}

// AddModel installs m; requests for models not installed get the server's
// "not found" error.
func (s *script) AddModel(m Model) { s.addModel(m) }

func (s *script) addModel(m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m = m.withDefaults()
	s.models[withTag(m.Name)] = m
}

// RemoveModel uninstalls name (DefaultModel too).
func (s *script) RemoveModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.models, withTag(name))
}

// Load marks name as loaded with contextLength tokens of context (what
// Ollama's /api/ps reports).
func (s *script) Load(name string, contextLength int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running[withTag(name)] = contextLength
}

// Disconnected receives once for each request whose client went away
// while a Hang or Wait step held it.
func (s *script) Disconnected() <-chan struct{} { return s.gone }

func (s *script) model(name string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.models[withTag(name)]
	return m, ok
}

// next takes the next reply, or fails the test when none is queued.
func (s *script) next() ([]Step, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.served++
	if len(s.replies) == 0 {
		s.t.Errorf("llmtest: request #%d came in but no reply was queued", s.served)
		return nil, s.served, false
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return r, s.served, true
}

func (s *script) nextCallID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return fmt.Sprintf("call_%08d", s.calls)
}

// hold blocks until ch closes (reporting true) or the client or the test
// goes away (false).
func (s *script) hold(r *http.Request, ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-r.Context().Done():
		select {
		case s.gone <- struct{}{}:
		default: // nobody is counting beyond the buffer
		}
	case <-s.quit:
	}
	return false
}

// cleanup releases held requests, stops the server and fails the test if
// replies were left over.
func (s *script) cleanup(stop func()) {
	s.t.Cleanup(func() {
		close(s.quit)
		stop()
		if n := s.Pending(); n > 0 {
			s.t.Errorf("llmtest: %d queued replies were never requested", n)
		}
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func withTag(name string) string {
	if name == "" || strings.Contains(name[strings.LastIndex(name, "/")+1:], ":") {
		return name
	}
	return name + ":latest"
}

// promptTokens is the default prompt count: characters / 4 + 1.
func promptTokens(contents []string) int {
	n := 0
	for _, c := range contents {
		n += len(c)
	}
	return n/4 + 1
}

// reply gathers what the final chunk reports.
type reply struct {
	reason     string
	prompt     int
	completion int
	counted    int // chunks sent
	calls      int // tool calls sent
	setTokens  bool
}

func (r *reply) settle(steps []Step) {
	for _, st := range steps {
		switch st.kind {
		case stepDone:
			r.reason = st.reason
		case stepTokens:
			r.prompt, r.completion, r.setTokens = st.prompt, st.complete, true
		}
	}
}
