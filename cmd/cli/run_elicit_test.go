package cli

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/bus"
)

// On a terminal, `ollm run` asks for an MCP server's requested input: the
// line typed is the answer, an empty line declines.
func TestAnswerElicitation(t *testing.T) {
	var w bytes.Buffer
	r := answerElicitation(&w, bufio.NewReader(strings.NewReader("{\"name\": \"Ada\"}\n")), "req-1", nil)
	if r.ID != "req-1" || r.Answer != bus.AllowOnce || r.Feedback != `{"name": "Ada"}` {
		t.Errorf("answer = %+v", r)
	}
	if !strings.Contains(w.String(), "empty declines") {
		t.Errorf("prompt = %q", w.String())
	}
	if r := answerElicitation(&w, bufio.NewReader(strings.NewReader("\n")), "req-2", nil); r.Answer != bus.Deny {
		t.Errorf("empty line = %+v", r)
	}
}
