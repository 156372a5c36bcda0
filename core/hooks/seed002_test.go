package hooks

import (
	"encoding/json"
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
