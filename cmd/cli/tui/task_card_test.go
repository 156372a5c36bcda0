package tui

import (
	"testing"

	"github.com/ollm/ollm/core/agent"
)

// A Task call's card names the agent and the task, and shows the
// subagent's activity lines (its progress) while it runs.
func TestTaskCardShowsSubagentActivity(t *testing.T) {
	m, _ := newModel(t)
	send(m, ToolStarted{ID: "t", Name: agent.TaskTool, Args: raw(`{"subagent_type":"review-kit:reviewer","description":"review main.go","prompt":"Review main.go"}`)})
	mustContain(t, plain(m), "Delegating to review-kit:reviewer: review main.go")
	send(m, ToolProgress{ID: "t", Text: "review-kit:reviewer: calls read_file {\"path\":\"main.go\"}\n", Message: "review-kit:reviewer: calls read_file"},
		ToolProgress{ID: "t", Text: "review-kit:reviewer: read_file done\n", Message: "review-kit:reviewer: read_file done"})
	mustContain(t, plain(m), `review-kit:reviewer: calls read_file {"path":"main.go"}`, "review-kit:reviewer: read_file done")
	send(m, ToolFinished{ID: "t", Status: ToolOK, Display: "main.go divides by zero."})
	mustContain(t, plain(m), "Delegate to review-kit:reviewer: review main.go", "main.go divides by zero.")
}
