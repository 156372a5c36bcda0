package tools

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/ollm/ollm/core/tool"
)

//go:embed shell_output.md
var shellOutputMD string

//go:embed shell_kill.md
var shellKillMD string

type jobParams struct {
	ID   string `json:"id"`
	Wait int    `json:"wait"`
}

func newShellOutput(e *env) tool.Tool {
	return &tool.Func[jobParams]{
		Spec: tool.Spec{ToolName: "shell_output", Desc: shellOutputMD, ToolKind: tool.KindRead, Params: obj([]string{"id"}, map[string]*tool.Schema{
			"id":   str("background job id, e.g. job-1"),
			"wait": integer("milliseconds to wait for the job to finish", 0),
		})},
		New: func(p jobParams) (*tool.Call, error) {
			desc := "Read the output of " + p.ID
			return &tool.Call{Desc: desc, Locs: []string{p.ID}, Confirm: &tool.Confirmation{Title: desc},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					j, err := e.jobs.get(p.ID)
					if err != nil {
						return tool.FromError(err, tool.ErrNotFound), nil
					}
					if p.Wait > 0 {
						select {
						case <-j.exited:
						case <-time.After(time.Duration(p.Wait) * time.Millisecond):
						case <-ctx.Done():
							return tool.CancelledResult(ctx.Err()), nil
						}
					}
					return e.jobReport(j), nil
				}}, nil
		},
	}
}

func newShellKill(e *env) tool.Tool {
	return &tool.Func[jobParams]{
		Spec: tool.Spec{ToolName: "shell_kill", Desc: shellKillMD, ToolKind: tool.KindExecute, Params: obj([]string{"id"}, map[string]*tool.Schema{
			"id": str("background job id, e.g. job-1"),
		})},
		New: func(p jobParams) (*tool.Call, error) {
			desc := "Kill background job " + p.ID
			return &tool.Call{Desc: desc, Locs: []string{p.ID}, Confirm: &tool.Confirmation{Title: desc},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					j, err := e.jobs.get(p.ID)
					if err != nil {
						return tool.FromError(err, tool.ErrNotFound), nil
					}
					j.kill()
					select {
					case <-j.exited:
					case <-ctx.Done():
						return tool.CancelledResult(ctx.Err()), nil
					}
					return e.jobReport(j), nil
				}}, nil
		},
	}
}

// jobReport is a job's status and its unread output.
func (e *env) jobReport(j *job) tool.Result {
	out, dropped := j.unread()
	status := j.status()
	text := fmt.Sprintf("%s (%s): %s\n", j.id, j.command, status)
	if dropped > 0 {
		text += fmt.Sprintf("[%d older bytes were dropped from the buffer]\n", dropped)
	}
	if out == "" {
		text += "(no new output)"
	} else {
		text += "Output:\n" + e.truncate(out)
	}
	return tool.Result{ForModel: text, Display: text, Data: map[string]any{"id": j.id, "status": status}}
}
