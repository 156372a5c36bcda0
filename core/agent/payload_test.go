package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm/llmtest"
)

// TestSeed003Fields runs a session in a real git repository with log.sh (a
// real bash process that appends its stdin to a file) on every event, and
// checks field by field what seed 003, the hook protocol, lists for each
// event: session {id, user, startTime}, config.temperature, after_agent
// prompt and metrics, after_tool metrics, on_error's error object,
// on_file_change's changes list, on_git_commit's files, session_end's
// endTime/duration/messageCount, context overflow's size/maxSize/
// utilization, and metadata.hookVersion and eventAlias.
func TestSeed003Fields(t *testing.T) {
	f := newFixture(t)
	logPath := filepath.Join(t.TempDir(), "events.jsonl")
	t.Setenv("EVENT_LOG", logPath)
	gitRepo(t, f.root)

	hs := logHooks(t)
	for _, h := range hs {
		if h.Event == hooks.BeforeTool {
			h.Extension, h.Version, h.Declared = "guard", "1.2.3", "pre-tool-call"
		}
	}
	f.cfg.Hooks = engine(t, "s1", f.root, hs...)
	f.cfg.Policy = mustPolicy(t, "allow")
	f.cfg.ContextWindow = 1000
	f.cfg.Options = map[string]any{"temperature": 0.3}
	start := time.Now()

	f.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "c.txt", "content": "sea\n"}))
	f.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "a.txt", "content": "alpha two\n", "overwrite": true}))
	f.srv.Reply(llmtest.ToolCall("shell", map[string]any{"command": `git commit -a -m "second"`}))
	f.srv.Reply(llmtest.Text("done"), llmtest.Tokens(900, 50))
	f.srv.Reply(llmtest.Text("summary")) // the compaction
	f.srv.Reply(llmtest.HTTPError(500, "boom"))

	s := f.session(t)
	ctx := context.Background()
	rep, err := s.Run(ctx, "change things")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, "fail now"); err == nil {
		t.Fatal("a 500 from the model is not an error")
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}

	got := hookLog(t, logPath)
	first := func(ev hooks.Event) hooks.Input {
		t.Helper()
		for _, in := range got {
			if in.Event == ev {
				return in
			}
		}
		t.Fatalf("no %s in the log", ev)
		return hooks.Input{}
	}
	all := func(ev hooks.Event) []hooks.Input {
		var out []hooks.Input
		for _, in := range got {
			if in.Event == ev {
				out = append(out, in)
			}
		}
		return out
	}
	obj := func(in hooks.Input, k string) map[string]any {
		t.Helper()
		m, ok := in.Data[k].(map[string]any)
		if !ok {
			t.Fatalf("%s: %s = %#v, want an object", in.Event, k, in.Data[k])
		}
		return m
	}

	// session {id, user, startTime} on every event.
	for _, in := range got {
		sess := obj(in, "session")
		if sess["id"] != "s1" || sess["user"] != userName() || sess["user"] == "" {
			t.Errorf("%s: session = %v", in.Event, sess)
		}
		st, err := time.Parse(time.RFC3339Nano, sess["startTime"].(string))
		if err != nil || st.Before(start.Add(-time.Second)) || st.After(time.Now()) {
			t.Errorf("%s: startTime %v (%v)", in.Event, sess["startTime"], err)
		}
		if in.Metadata.HookVersion != "" && in.Event != "pre-tool-call" { // the seed-003 name it was declared under
			t.Errorf("%s: hookVersion %q for a profile hook", in.Event, in.Metadata.HookVersion)
		}
	}
	// config {model, temperature}.
	for _, ev := range []hooks.Event{hooks.SessionStart, hooks.BeforeAgent} {
		c := obj(first(ev), "config")
		if c["model"] != llmtest.DefaultModel || c["temperature"] != 0.3 {
			t.Errorf("%s: config = %v", ev, c)
		}
	}
	// metadata.hookVersion and the alias the hook was declared under.
	// A hook declared under a seed-003 name reads that name as its event
	// and the data under "context" as well (decisions.md).
	ptc := first("pre-tool-call")
	if md := ptc.Metadata; md.HookVersion != "1.2.3" || md.EventAlias != "pre-tool-call" || md.Extension != "guard" {
		t.Errorf("before_tool metadata = %+v", md)
	}
	if c, _ := ptc.Context.(map[string]any); c["tool"] != ptc.Data["tool_name"] || c["tool"] == nil {
		t.Errorf("before_tool context = %v", ptc.Context)
	}
	// after_agent: prompt and metrics {duration, tokens}.
	aa := first(hooks.AfterAgent)
	m := obj(aa, "metrics")
	if aa.Data["prompt"] != "change things" || aa.Data["response"] != "done" {
		t.Errorf("after_agent = %v", aa.Data)
	}
	if d, _ := m["duration"].(float64); d <= 0 || d > 60 {
		t.Errorf("after_agent duration = %v", m["duration"])
	}
	if m["tokens"] != float64(rep.Usage.PromptTokens+rep.Usage.CompletionTokens) || m["tokens"].(float64) < 950 {
		t.Errorf("after_agent tokens = %v, usage %+v", m["tokens"], rep.Usage)
	}
	// after_tool: metrics {duration, success}.
	for _, in := range all(hooks.AfterTool) {
		m := obj(in, "metrics")
		d, ok := m["duration"].(float64)
		if !ok || d < 0 || d > 60 || m["success"] != true {
			t.Errorf("after_tool %v: metrics = %v (%v)", in.Data["tool_name"], m, in.Data["error"])
		}
	}
	// on_file_change: changes [{path, type, size, timestamp}].
	fc := all(hooks.OnFileChange)
	if len(fc) != 2 {
		t.Fatalf("on_file_change fired %d times", len(fc))
	}
	for i, want := range []struct {
		name, typ string
		size      float64
	}{{"c.txt", "created", 4}, {"a.txt", "modified", 10}} {
		ch, ok := fc[i].Data["changes"].([]any)
		if !ok || len(ch) != 1 {
			t.Fatalf("changes = %#v", fc[i].Data["changes"])
		}
		c := ch[0].(map[string]any)
		path := filepath.Join(f.root, want.name)
		if c["path"] != path || fc[i].Data["file"] != path || c["type"] != want.typ || c["size"] != want.size {
			t.Errorf("change %d = %v, want %s %s %v", i, c, path, want.typ, want.size)
		}
		if _, err := time.Parse(time.RFC3339Nano, c["timestamp"].(string)); err != nil {
			t.Errorf("timestamp: %v", err)
		}
		if fc[i].Data["tool_name"] != "write_file" {
			t.Errorf("tool_name = %v", fc[i].Data["tool_name"])
		}
	}
	// on_git_commit: files staged plus tracked changes (-a).
	gc := first(hooks.OnGitCommit)
	files, _ := gc.Data["files"].([]any)
	if !slices.Equal(files, []any{"a.txt", "s.txt"}) || gc.Data["message"] != "second" || gc.Data["branch"] != "main" {
		t.Errorf("on_git_commit = %v", gc.Data)
	}
	// on_context_overflow: context {size, maxSize, utilization}.
	co := obj(first(hooks.OnContextOverflow), "context")
	if co["size"] != 950.0 || co["maxSize"] != 1000.0 || co["utilization"] != 0.95 {
		t.Errorf("on_context_overflow context = %v", co)
	}
	// on_error: error {message, code, stack}.
	oe := first(hooks.OnError)
	e := obj(oe, "error")
	if !strings.Contains(e["message"].(string), "boom") || e["code"] != "server" || !strings.Contains(e["stack"].(string), "boom") || oe.Data["operation"] != "model" {
		t.Errorf("on_error = %v", oe.Data)
	}
	// session_end: session {endTime, duration, messageCount}.
	se := obj(first(hooks.SessionEnd), "session")
	end, err := time.Parse(time.RFC3339Nano, se["endTime"].(string))
	if err != nil || end.Before(start) {
		t.Errorf("endTime = %v", se["endTime"])
	}
	if d, _ := se["duration"].(float64); d <= 0 || d > 120 {
		t.Errorf("duration = %v", se["duration"])
	}
	// The conversation: the compaction replaced the first prompt's messages;
	// the second prompt follows it.
	if n, _ := se["messageCount"].(float64); n < 1 || int(n) != countNonSystem(s) {
		t.Errorf("messageCount = %v, conversation has %d", se["messageCount"], countNonSystem(s))
	}
}

func countNonSystem(s *Session) int {
	n := 0
	for _, m := range s.Messages() {
		if m.Role != "system" {
			n++
		}
	}
	return n
}

// gitRepo makes dir a git repository on main with a.txt committed and
// s.txt staged. The identity is the repository's own, so a commit the
// session's shell makes there works on a machine with no git identity.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	run("config", "user.name", "t")
	run("config", "user.email", "t@example.com")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	run("add", "a.txt")
	run("commit", "-q", "-m", "first")
	os.WriteFile(filepath.Join(dir, "s.txt"), []byte("staged\n"), 0o644)
	run("add", "s.txt")
}
