package llm_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/tool"
)

// recorder collects the events of one chat.
type recorder struct{ events []llm.Event }

func (r *recorder) add(e llm.Event) { r.events = append(r.events, e) }

// kinds lists the event kinds in order, with the text of deltas.
func (r *recorder) kinds() []string {
	var out []string
	for _, e := range r.events {
		s := e.Kind.String()
		switch e.Kind {
		case llm.EventContent, llm.EventThinking:
			s += ":" + e.Text
		case llm.EventToolCall:
			s += ":" + e.ToolCall.Name
		}
		out = append(out, s)
	}
	return out
}

func (r *recorder) last() llm.Event {
	if len(r.events) == 0 {
		return llm.Event{}
	}
	return r.events[len(r.events)-1]
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func user(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }

func readFileDef() tool.Definition {
	return tool.Definition{
		Name:        "read_file",
		Description: "Read a file.",
		Parameters: &tool.Schema{
			Type: "object",
			Properties: map[string]*tool.Schema{
				"path":  {Type: "string", Description: "Path to read."},
				"lines": {Type: "array", Items: &tool.Schema{Type: "integer"}},
				"mode":  {Type: "string", Enum: []any{"text", "hex"}},
			},
			Required: []string{"path"},
		},
	}
}

func jsonEq(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("not JSON: %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("JSON = %s, want %s", gb, wb)
	}
}

func wantKind(t *testing.T, err error, k llm.ErrorKind, parts ...string) {
	t.Helper()
	if !llm.IsKind(err, k) {
		t.Fatalf("error = %v (%T), want kind %s", err, err, k)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}

// cancelOnFirst returns a context cancelled by the first event of kind k.
func cancelOnFirst(t *testing.T, k llm.EventKind, rec *recorder) (context.Context, func(llm.Event)) {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	return ctx, func(e llm.Event) {
		rec.add(e)
		if e.Kind == k {
			cancel()
		}
	}
}
