package mcp

import (
	"context"
	"encoding/json"
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

// A task whose caller gives up (the user cancels: the call's context
// ends) is cancelled at the server too, over streamable HTTP:
// server-everything behind a proxy that records the messages. The call
// is cancelled at the task's first status; tasks/cancel follows for the
// task the call created, and the server answers that it is cancelled.
func TestTaskCancelledByTheCaller(t *testing.T) {
	p := newRecordingProxy(t, startEverythingHTTP(t, "streamableHttp"))
	m := startManager(t, []Spec{{Name: "ev", Config: Config{Transport: TransportHTTP, URL: p.URL + "/mcp", Enabled: true}}}, Options{})
	inv, err := mustLookup(t, m, "ev:simulate-research-query").Build([]byte(`{"topic":"go"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	res, err := inv.Execute(ctx, func(c tool.Chunk) {
		if c.Message != "" {
			once.Do(cancel) // the user stops the call once the task runs
		}
	})
	if err != nil || res.Error == nil || res.Error.Kind != tool.ErrCancelled {
		t.Fatalf("%+v %v", res, err)
	}
	var taskID, cancelled string
	for _, msg := range p.seen() {
		switch msg.Method {
		case "tools/call":
			var r struct {
				Result struct {
					Task struct {
						TaskID string `json:"taskId"`
					} `json:"task"`
				} `json:"result"`
			}
			json.Unmarshal([]byte(sseData(msg.Answer)), &r)
			taskID = r.Result.Task.TaskID
		case "tasks/cancel":
			var q struct {
				TaskID string `json:"taskId"`
			}
			json.Unmarshal(msg.Params, &q)
			var r struct {
				Result struct {
					Status string `json:"status"`
				} `json:"result"`
			}
			json.Unmarshal([]byte(sseData(msg.Answer)), &r)
			cancelled = q.TaskID + " " + r.Result.Status
		}
	}
	if taskID == "" || cancelled != taskID+" cancelled" {
		t.Errorf("task %q; tasks/cancel: %q; messages %q", taskID, cancelled, methodsOf(p.seen()))
	}
}

// sseData is the data of an event-stream answer's last event carrying
// data, or the body itself when it is plain JSON.
func sseData(body string) string {
	data := body
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "data:"); ok {
			data = strings.TrimSpace(d)
		}
	}
	return data
}
