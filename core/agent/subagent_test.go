package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/internal/claudeagent"
	"github.com/ollm/ollm/schema"
)

// reviewer is the fixture plugin's agent, read as the plugin loader reads it.
func reviewer(t *testing.T) schema.Subagent {
	t.Helper()
	data, err := os.ReadFile("testdata/plugin/agents/reviewer.md")
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := claudeagent.Parse("testdata/plugin/agents/reviewer.md", data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func task(agent, prompt string) llmtest.Step {
	return llmtest.ToolCall(TaskTool, map[string]any{"subagent_type": agent, "description": "review", "prompt": prompt})
}

// The model delegates to the plugin's reviewer: the child runs on the
// agent's prompt and mapped model with only Read and Grep (a shell call is
// refused and runs nothing), its activity reaches the parent's events, and
// its answer is the tool result of the parent's next request.
func TestSubagentDispatch(t *testing.T) {
	f := newFixture(t)
	if err := os.WriteFile(filepath.Join(f.root, "a.go"), []byte("package a // SECRET-LINE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.AddModel(llmtest.Model{Name: "small:1b"})
	f.cfg.Subagents = &Subagents{Agents: []schema.Subagent{reviewer(t)}, MaxDepth: 1, Models: map[string]string{"sonnet": "small:1b"}}
	s := f.session(t)
	f.srv.Reply(task("reviewer", "Review a.go"))
	f.srv.Reply(llmtest.ToolCall("shell", map[string]any{"command": "touch pwned"}), llmtest.ToolCall("read_file", map[string]any{"path": "a.go"}))
	f.srv.Reply(llmtest.Text("a.go looks fine"))
	f.srv.Reply(llmtest.Text("The reviewer found nothing."))
	rep, err := s.Run(context.Background(), "review a.go with the reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Text != "The reviewer found nothing." {
		t.Errorf("reply: %q", rep.Text)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	parentTools := llmtest.ToolNames(reqs[0].Tools)
	if !contains(parentTools, TaskTool) || !strings.Contains(string(reqs[0].Raw), "reviewer: Use this agent when code needs a review") {
		t.Errorf("the parent is not offered the Task tool listing reviewer: %v", parentTools)
	}
	child := reqs[1]
	if child.Model != "small:1b" {
		t.Errorf("child model %q, want sonnet mapped to small:1b", child.Model)
	}
	if got := strings.Join(llmtest.ToolNames(child.Tools), " "); got != "grep read_file read_many_files" && got != "read_file read_many_files grep" {
		t.Errorf("child tools: %s", got)
	}
	if child.Messages[0].Role != "system" || !strings.HasPrefix(child.Messages[0].Content, "You are a code reviewer.") || child.Messages[1].Content != "Review a.go" {
		t.Errorf("child conversation: %+v", child.Messages[:2])
	}
	res := toolMessages(reqs[2])
	if len(res) != 2 || !strings.Contains(res[0].Content, `there is no tool "shell"`) || !strings.Contains(res[1].Content, "SECRET-LINE") {
		t.Errorf("child tool results: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(f.root, "pwned")); err == nil {
		t.Error("the shell call outside the agent's tools ran")
	}
	back := toolMessages(reqs[3])
	if len(back) != 1 || back[0].Content != "a.go looks fine" {
		t.Errorf("the parent's next request does not carry the answer: %+v", back)
	}
	if reqs[3].Model != llmtest.DefaultModel {
		t.Errorf("the parent switched model: %s", reqs[3].Model)
	}
	var lines []string
	for _, e := range f.rec.of(EvToolProgress) {
		if c := e.Tool.Chunk; c != nil && c.Agent == "reviewer" && e.Tool.Name == TaskTool {
			lines = append(lines, c.Message)
		}
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{"reviewer: started", "reviewer: calls shell", `reviewer: shell failed: there is no tool "shell"`, "reviewer: calls read_file", "reviewer: read_file done"} {
		if !strings.Contains(all, want) {
			t.Errorf("no progress line %q in\n%s", want, all)
		}
	}
}

// A subagent cannot delegate further at the default depth: it is not
// offered the Task tool, and calling it is refused.
func TestSubagentDepthBound(t *testing.T) {
	f := newFixture(t)
	helper := schema.Subagent{Name: "helper", Description: "does anything", Prompt: "You help."} // every tool
	f.cfg.Subagents = &Subagents{Agents: []schema.Subagent{helper}, MaxDepth: 1}
	s := f.session(t)
	f.srv.Reply(task("helper", "delegate again"))
	f.srv.Reply(task("helper", "nested"))
	f.srv.Reply(llmtest.Text("could not delegate"))
	f.srv.Reply(llmtest.Text("done"))
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if names := llmtest.ToolNames(reqs[1].Tools); contains(names, TaskTool) || !contains(names, "shell") {
		t.Errorf("the subagent's tools: %v", names)
	}
	res := toolMessages(reqs[2])
	if len(res) != 1 || !strings.Contains(res[0].Content, `there is no tool "Task"`) {
		t.Errorf("the nested dispatch was not refused: %+v", res)
	}
	if back := toolMessages(reqs[3]); len(back) != 1 || back[0].Content != "could not delegate" {
		t.Errorf("parent got: %+v", back)
	}

	// maxDepth 2 lets it: the grandchild's activity is marked outer/inner.
	f = newFixture(t)
	f.cfg.Subagents = &Subagents{Agents: []schema.Subagent{helper}, MaxDepth: 2}
	s = f.session(t)
	f.srv.Reply(task("helper", "delegate again"))
	f.srv.Reply(task("helper", "nested"))
	f.srv.Reply(llmtest.ToolCall("ls", map[string]any{}))
	f.srv.Reply(llmtest.Text("inner answer"))
	f.srv.Reply(llmtest.Text("outer answer"))
	f.srv.Reply(llmtest.Text("done"))
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if back := toolMessages(f.srv.Requests()[4]); len(back) != 1 || back[0].Content != "inner answer" {
		t.Errorf("the outer subagent got: %+v", back)
	}
	found := false
	for _, e := range f.rec.of(EvToolProgress) {
		if c := e.Tool.Chunk; c != nil && c.Agent == "helper/helper" && strings.Contains(c.Message, "calls ls") {
			found = true
		}
	}
	if !found {
		t.Error("no progress of the nested subagent marked helper/helper")
	}
}

// SubagentStart and SubagentStop run real hooks: a native one and a
// Claude-dialect one, which sees Claude's field names; a blocking start
// hook refuses the dispatch.
func TestSubagentHooks(t *testing.T) {
	log := filepath.Join(t.TempDir(), "events.log")
	t.Setenv("EVENT_LOG", log)
	f := newFixture(t)
	f.cfg.Subagents = &Subagents{Agents: []schema.Subagent{reviewer(t)}, MaxDepth: 1}
	start := hook(t, "start", hooks.SubagentStart, "log.sh")
	stop := hook(t, "stop", hooks.SubagentStop, "log.sh")
	stop.Def.Dialect, stop.Declared = "claude", "SubagentStop"
	f.cfg.Hooks = engine(t, "s1", f.root, start, stop)
	s := f.session(t)
	f.srv.Reply(task("reviewer", "Review a.go"))
	f.srv.Reply(llmtest.Text("all good"))
	f.srv.Reply(llmtest.Text("done"))
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("hook runs:\n%s", data)
	}
	var in, claude map[string]any
	_ = json.Unmarshal([]byte(lines[0]), &in)
	_ = json.Unmarshal([]byte(lines[1]), &claude)
	d, _ := in["data"].(map[string]any)
	if in["event"] != "subagent_start" || d["agent_name"] != "reviewer" || d["prompt"] != "Review a.go" {
		t.Errorf("subagent_start input: %s", lines[0])
	}
	if claude["hook_event_name"] != "SubagentStop" || claude["agent_type"] != "reviewer" || claude["last_assistant_message"] != "all good" {
		t.Errorf("SubagentStop input: %s", lines[1])
	}

	// A start hook that blocks: nothing runs, the model reads why.
	f = newFixture(t)
	f.cfg.Subagents = &Subagents{Agents: []schema.Subagent{reviewer(t)}, MaxDepth: 1}
	f.cfg.Hooks = engine(t, "s1", f.root, hook(t, "no", hooks.SubagentStart, "block.sh"))
	s = f.session(t)
	f.srv.Reply(task("reviewer", "Review a.go"))
	f.srv.Reply(llmtest.Text("ok"))
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests: the blocked subagent ran", len(reqs))
	}
	if res := toolMessages(reqs[1]); len(res) != 1 || !strings.Contains(res[0].Content, "no subagent_start today") {
		t.Errorf("refusal: %+v", res)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
