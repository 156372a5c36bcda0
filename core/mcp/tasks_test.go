package mcp

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ollm/ollm/core/tool"
)

// server-everything's simulate-research-query must be called as a task:
// the call creates it, the status messages come back as progress, and the
// report is the result; an ambiguous query asks for a clarification by
// elicitation through tasks/result.
func TestTaskRequiredTool(t *testing.T) {
	for transport, spec := range map[string]Spec{"stdio": everythingStdio(t, "ev"),
		"http": {Name: "ev", Config: Config{Transport: TransportHTTP, URL: startEverythingHTTP(t, "streamableHttp") + "/mcp", Enabled: true}}} {
		t.Run(transport, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			m := startManager(t, []Spec{spec}, Options{
				Elicit: func(ctx context.Context, e Elicitation) (ElicitationReply, error) {
					mu.Lock()
					asked = append(asked, e.Message)
					mu.Unlock()
					return ElicitationReply{Action: ElicitAccept, Content: map[string]any{"interpretation": "programming"}}, nil
				},
			})
			var progress []string
			res := run(t, mustLookup(t, m, "ev:simulate-research-query"), `{"topic":"python","ambiguous":true}`, func(c tool.Chunk) {
				progress = append(progress, c.Message)
			})
			if res.Error != nil || !strings.Contains(res.ForModel, "# Research Report: python (programming)") {
				t.Fatalf("%+v", res)
			}
			got := strings.Join(progress, "\n")
			for _, want := range []string{"working: Gathering sources...", "input_required: Found multiple interpretations"} {
				if !strings.Contains(got, want) {
					t.Errorf("progress lacks %q:\n%s", want, got)
				}
			}
			if len(asked) != 1 || !strings.Contains(asked[0], `The research query "python" could have multiple interpretations`) {
				t.Errorf("elicitations %q", asked)
			}
		})
	}
}

// A task whose call times out is cancelled at the server (tasks/cancel),
// and the model reads that the call timed out.
func TestTaskCancelledOnTimeout(t *testing.T) {
	spec := everythingStdio(t, "ev")
	spec.Config.Timeout = 1500 // ms: the research takes four seconds
	logs := t.TempDir()
	m := startManager(t, []Spec{spec}, Options{LogDir: logs})
	res := run(t, mustLookup(t, m, "ev:simulate-research-query"), `{"topic":"go"}`, nil)
	if res.Error == nil || res.Error.Kind != tool.ErrTimeout {
		t.Fatalf("%+v", res)
	}
	waitFile(t, filepath.Join(logs, "mcp-ev.log"), "task cancelled")
}
