package agent

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// A built-in tool call that runs and fails (a file that is not there, a
// command that exits 1) reaches on_error with the tool's error kind, as
// docs/hooks.md says; a call that succeeds does not.
func TestOnErrorForFailedToolCalls(t *testing.T) {
	f := newFixture(t)
	logPath := filepath.Join(t.TempDir(), "events.jsonl")
	t.Setenv("EVENT_LOG", logPath)
	f.cfg.Tools = tool.NewRegistry(builtins(t, f.root)...)
	f.cfg.Hooks = engine(t, "s1", f.root, hook(t, "log-error", hooks.OnError, "log.sh"))
	f.cfg.Policy = mustPolicy(t, "allow", schema.PolicyRule{Tool: "*", Action: "allow"})
	f.srv.Reply(llmtest.ToolCall("read_file", map[string]any{"path": "missing.txt"}))
	f.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "ok.txt", "content": "fine\n"}))
	f.srv.Reply(llmtest.Text("done"))
	s := f.session(t)
	if _, err := s.Run(context.Background(), "read it"); err != nil {
		t.Fatal(err)
	}
	got := hookLog(t, logPath)
	if len(got) != 1 {
		t.Fatalf("on_error ran %d times, want once (the failed read): %+v", len(got), got)
	}
	d := got[0].Data
	e, _ := d["error"].(map[string]any)
	if d["operation"] != "tool read_file" || e["code"] != string(tool.ErrNotFound) || e["message"] == "" {
		t.Errorf("on_error data = %v", d)
	}
}
