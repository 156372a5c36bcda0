package llmtest

import (
	"encoding/json"
	"net/http"
	"sync"
)

// pulls are the models the fake Ollama's /api/pull can download, as if
// from a registry.
type pulls struct {
	mu    sync.Mutex
	avail map[string]*Pull // by name with tag
	seen  []string         // names asked for, in order
}

// Pull is a model /api/pull can download: Size bytes in one large layer.
// While held, the stream stops after the first partial progress line
// until Release.
type Pull struct {
	Model Model
	Size  int64
	hold  chan struct{}
	once  sync.Once
}

// Release lets a held pull go on to "success".
func (p *Pull) Release() { p.once.Do(func() { close(p.hold) }) }

// Pullable makes m downloadable through /api/pull, Size bytes (default
// 2 GB). hold stops the stream after its first partial progress line until
// the returned Pull's Release (or the test's end).
func (s *Ollama) Pullable(m Model, size int64, hold bool) *Pull {
	if size == 0 {
		size = 2_000_000_000
	}
	m.Size = size
	p := &Pull{Model: m.withDefaults(), Size: size, hold: make(chan struct{})}
	if !hold {
		p.Release()
	}
	s.pulls.mu.Lock()
	defer s.pulls.mu.Unlock()
	if s.pulls.avail == nil {
		s.pulls.avail = map[string]*Pull{}
	}
	s.pulls.avail[withTag(m.Name)] = p
	return p
}

// Pulled lists the names /api/pull was asked for, in order.
func (s *Ollama) Pulled() []string {
	s.pulls.mu.Lock()
	defer s.pulls.mu.Unlock()
	return append([]string(nil), s.pulls.seen...)
}

// pull speaks Ollama's /api/pull: with "stream" unset or true, one JSON
// object per line: "pulling manifest", then per layer "pulling <12 hex>"
// with digest, total and completed, then "verifying sha256 digest",
// "writing manifest", "success". A name the registry does not have ends
// the stream with {"error": "pull model manifest: file does not exist"}
// after "pulling manifest", as Ollama does. With "stream": false, only the
// last object is written.
func (s *Ollama) pull(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model  string `json:"model"`
		Name   string `json:"name"`
		Stream *bool  `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	s.pulls.mu.Lock()
	s.pulls.seen = append(s.pulls.seen, name)
	p := s.pulls.avail[withTag(name)]
	s.pulls.mu.Unlock()
	if _, installed := s.model(name); installed && p == nil {
		p = &Pull{Model: Model{Name: name}.withDefaults(), Size: 1000, hold: make(chan struct{})}
		p.Release()
	}
	stream := req.Stream == nil || *req.Stream
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(v any) {
		if stream {
			_ = enc.Encode(v)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
	}
	send(map[string]any{"status": "pulling manifest"})
	if p == nil {
		_ = enc.Encode(map[string]any{"error": "pull model manifest: file does not exist"})
		return
	}
	layers := []struct {
		digest string
		size   int64
	}{{"sha256:" + digest(name+"/model"), p.Size}, {"sha256:" + digest(name+"/template"), 1482}, {"sha256:" + digest(name+"/params"), 96}}
	for i, l := range layers {
		status := "pulling " + l.digest[7:19]
		send(map[string]any{"status": status, "digest": l.digest, "total": l.size})
		if i == 0 {
			send(map[string]any{"status": status, "digest": l.digest, "total": l.size, "completed": l.size * 2 / 5})
			if !s.hold(r, p.hold) {
				return
			}
			send(map[string]any{"status": status, "digest": l.digest, "total": l.size, "completed": l.size * 4 / 5})
		}
		send(map[string]any{"status": status, "digest": l.digest, "total": l.size, "completed": l.size})
	}
	send(map[string]any{"status": "verifying sha256 digest"})
	send(map[string]any{"status": "writing manifest"})
	s.addModel(p.Model)
	if !stream {
		_ = enc.Encode(map[string]any{"status": "success"})
		return
	}
	send(map[string]any{"status": "success"})
}
