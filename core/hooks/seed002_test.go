package hooks

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ollm/ollm/schema"
)

// Every line a persistent hook reads has a type, whatever its dialect
// (seed 002's extensions dispatch on msg["type"]); a process hook's
// input has none.
func TestPersistentEventLinesHaveAType(t *testing.T) {
	for _, dialect := range []string{"", "claude", "gemini"} {
		h := &Hook{Name: "h", Event: SessionStart, Scope: schema.ScopeUser, Def: schema.Hook{Name: "h", Dialect: dialect}}
		for id, want := range map[uint64]any{0: nil, 3: "event"} {
			b, err := BuildInput(h, SessionStart, map[string]any{"source": "startup"}, nil, Session{ID: "s"}, time.Unix(0, 0), id)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if m["type"] != want {
				t.Errorf("dialect %q id %d: type %v, want %v (%s)", dialect, id, m["type"], want, b)
			}
		}
	}
}

// A seed 002 extension gets hello_ack after its hello: the protocol
// version, the active provider, model and directory in seed 002's field
// names (it may register its commands by them, as this one does).
func TestSeed002HelloAck(t *testing.T) {
	ackLog := filepath.Join(t.TempDir(), "ack.json")
	t.Setenv("ACK_LOG", ackLog)
	cwd := t.TempDir()
	h := &Hook{Name: "acker", Event: SessionStart, Scope: schema.ScopeUser, Extension: "acker",
		Def: schema.Hook{Name: "acker", Command: "python3", Args: []string{script(t, "seed002_ack.py")}, Persistent: true}}
	e := newEngine(t, Options{Version: "1.2.3", Model: func() string { return "qwen3:8b" }, Provider: func() string { return "ollama" },
		AllowEnv: []string{"ACK_LOG"}, Session: Session{ID: "s1", Cwd: cwd}}, h)
	if _, err := e.Emit(t.Context(), SessionStart, map[string]any{"source": "startup"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(ackLog)
	if err != nil {
		t.Fatalf("the extension saw no hello_ack: %v", err)
	}
	var ack map[string]any
	if err := json.Unmarshal(data, &ack); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "hello_ack", "protocol_version": float64(1), "ollm_version": "1.2.3", "provider": "ollama", "model": "qwen3:8b", "cwd": cwd}
	if !maps.Equal(ack, want) {
		t.Errorf("hello_ack = %v, want %v", ack, want)
	}
	if cmds := e.Commands(); len(cmds) != 1 || cmds[0].Name != "acked" {
		t.Errorf("commands = %+v, want the one registered after the ack", cmds)
	}
}
