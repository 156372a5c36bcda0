package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// TestAllEventsInOrder runs a multi-turn session with built-in tools, an
// MCP tool over stdio, a confirmed shell call that commits, a compaction
// and a model failure, with log.sh attached to every event; the log proves
// every event fired, in order, with its fields.
func TestAllEventsInOrder(t *testing.T) {
	f := newFixture(t)
	logPath := filepath.Join(t.TempDir(), "events.jsonl")
	t.Setenv("EVENT_LOG", logPath)
	os.WriteFile(filepath.Join(f.root, "a.txt"), []byte("alpha\n"), 0o644)
	os.MkdirAll(filepath.Join(f.root, ".git"), 0o755)
	os.WriteFile(filepath.Join(f.root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)

	m := everything(t, "everything")
	f.cfg.Tools = tool.NewRegistry(append(builtins(t, f.root), m.Tools()...)...)
	f.cfg.Hooks = engine(t, "s1", f.root, logHooks(t)...)
	f.cfg.Policy = mustPolicy(t, "allow", schema.PolicyRule{Name: "shell-asks", Tool: "shell", Action: "ask"})
	f.cfg.Bus = bus.New(bus.Options{})
	f.cfg.ContextWindow = 1000
	asked := answer(t, f.cfg.Bus, bus.AllowOnce)

	f.srv.Reply(llmtest.ToolCall("read_file", map[string]any{"path": "a.txt"}), llmtest.ToolCall("echo", map[string]any{"message": "hi"}))
	f.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "b.txt", "content": "bee\n"}))
	f.srv.Reply(llmtest.ToolCall("shell", map[string]any{"command": `git commit -m "first"`}))
	f.srv.Reply(llmtest.Text("all ", "done"), llmtest.Tokens(900, 50))
	f.srv.Reply(llmtest.Text("we read a, echoed, wrote b and tried to commit")) // the compaction summary
	f.srv.Reply(llmtest.Text("again"))
	f.srv.Reply(llmtest.HTTPError(500, "boom"))

	s := f.session(t)
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Run(ctx, "do things")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Text != "all done" || rep.Turns != 4 || len(rep.ToolCalls) != 4 {
		t.Fatalf("reply = %+v", rep)
	}
	if _, err := s.Run(ctx, "once more"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, "fail"); err == nil {
		t.Fatal("a 500 from the model is not an error")
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}

	got := hookLog(t, logPath)
	var names []string
	for _, in := range got {
		names = append(names, string(in.Event))
	}
	want := strings.Fields(`session_start
		before_agent before_tool_selection before_model after_model before_tool before_tool after_tool after_tool
		before_tool_selection before_model after_model before_tool after_tool on_file_change
		before_tool_selection before_model after_model before_tool on_approval_request on_git_commit on_error after_tool
		before_tool_selection before_model after_model after_agent
		before_agent on_context_overflow before_tool_selection before_model after_model after_agent
		before_agent before_tool_selection before_model on_error
		session_end`)
	if !slices.Equal(names, want) {
		t.Fatalf("events\n got %v\nwant %v", names, want)
	}
	for _, in := range got {
		for _, field := range append([]string{"session_id"}, hooks.Fields[in.Event]...) {
			if _, ok := in.Data[field]; !ok {
				t.Errorf("%s: no %q in %v", in.Event, field, in.Data)
			}
		}
		if in.Data["session_id"] != "s1" || in.Metadata.SessionID != "s1" {
			t.Errorf("%s: session id %v / %v", in.Event, in.Data["session_id"], in.Metadata.SessionID)
		}
	}
	// Field values, spot by spot.
	at := func(i int) map[string]any { return got[i].Data }
	if at(1)["prompt"] != "do things" {
		t.Errorf("before_agent prompt = %v", at(1)["prompt"])
	}
	if names := at(2)["available_tools"].([]any); !slices.Contains(names, any("echo")) || !slices.Contains(names, any("read_file")) {
		t.Errorf("available_tools = %v", names)
	}
	if at(3)["model"] != llmtest.DefaultModel || len(at(3)["messages"].([]any)) != 1 {
		t.Errorf("before_model = %v", at(3))
	}
	if at(5)["tool_name"] != "read_file" || at(5)["args"].(map[string]any)["path"] != "a.txt" || at(6)["tool_name"] != "echo" {
		t.Errorf("before_tool = %v, %v", at(5), at(6))
	}
	if !strings.Contains(at(7)["result"].(string), "alpha") || !strings.Contains(at(8)["result"].(string), "hi") {
		t.Errorf("after_tool results = %q, %q", at(7)["result"], at(8)["result"])
	}
	if file := at(14)["file"].(string); file != filepath.Join(f.root, "b.txt") {
		t.Errorf("on_file_change file = %q", file)
	}
	if at(19)["requester"] != "shell" || at(20)["message"] != "first" || at(20)["branch"] != "main" {
		t.Errorf("approval %v / commit %v", at(19), at(20))
	}
	if tok := at(25)["tokens"].(map[string]any); tok["prompt"] != 900.0 || tok["completion"] != 50.0 || at(25)["response"] != "all done" {
		t.Errorf("after_model = %v", at(25))
	}
	if tc := at(26)["tool_calls"].([]any); len(tc) != 4 || at(26)["response"] != "all done" {
		t.Errorf("after_agent = %v", at(26))
	}
	if c := at(28)["context"].(map[string]any); c["used"] != 950.0 || c["window"] != 1000.0 {
		t.Errorf("on_context_overflow = %v", at(28))
	}
	if e, _ := at(36)["error"].(map[string]any); !strings.Contains(e["message"].(string), "boom") || at(36)["operation"] != "model" {
		t.Errorf("on_error = %v", at(36))
	}
	if len(at(37)["messages"].([]any)) == 0 {
		t.Error("session_end without messages")
	}

	// The confirmation showed the final arguments; the model saw every result.
	if len(*asked) != 1 || !strings.Contains(string((*asked)[0].Params), "git commit") || (*asked)[0].Rule == nil || (*asked)[0].Rule.Name != "shell-asks" {
		t.Fatalf("asked = %+v", *asked)
	}
	reqs := f.srv.Requests()
	tm := toolMessages(reqs[1])
	if len(tm) != 2 || !strings.Contains(tm[0].Content, "alpha") || !strings.Contains(tm[1].Content, "hi") {
		t.Fatalf("tool results sent = %+v", tm)
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "b.txt")); string(b) != "bee\n" {
		t.Fatalf("b.txt = %q", b)
	}
	// The compaction replaced the first prompt's exchange by the summary.
	after := reqs[5].Messages
	if after[0].Role != "system" || !strings.Contains(after[0].Content, "we read a") || after[1].Content != "once more" {
		t.Fatalf("messages after compaction = %+v", after)
	}
	if len(f.rec.of(EvCompacted)) != 1 || len(f.rec.of(EvToolConfirm)) != 1 || len(f.rec.of(EvFileChange)) != 1 {
		t.Fatalf("loop events: compacted %d, confirm %d, file change %d",
			len(f.rec.of(EvCompacted)), len(f.rec.of(EvToolConfirm)), len(f.rec.of(EvFileChange)))
	}
}

// TestBlockingAtEachEvent attaches block.sh to one event at a time and
// checks what stops and what the user and the model are told.
func TestBlockingAtEachEvent(t *testing.T) {
	cases := []struct {
		ev      hooks.Event
		topErr  bool   // Run returns a *BlockedError
		toModel string // else: the tool result the model sees contains this
		replies int    // model replies consumed
	}{
		{hooks.SessionStart, true, "", 0},
		{hooks.BeforeAgent, true, "", 0},
		{hooks.BeforeToolSelection, true, "", 0},
		{hooks.BeforeModel, true, "", 0},
		{hooks.AfterModel, true, "", 1},
		{hooks.BeforeTool, false, "blocked by before_tool hook", 2},
		{hooks.AfterTool, false, "withheld: blocked by after_tool hook", 2},
		{hooks.OnFileChange, false, "[on_file_change: blocked by on_file_change hook", 2},
		{hooks.AfterAgent, true, "", 2},
	}
	for _, c := range cases {
		t.Run(string(c.ev), func(t *testing.T) {
			f := newFixture(t)
			f.cfg.Hooks = engine(t, "s1", f.root, hook(t, "guard", c.ev, "block.sh"))
			replies := [][]llmtest.Step{
				{llmtest.ToolCall("write_file", map[string]any{"path": "w.txt", "content": "x"})},
				{llmtest.Text("ok")},
			}
			for _, r := range replies[:c.replies] {
				f.srv.Reply(r...)
			}
			s := f.session(t)
			_, err := s.Run(context.Background(), "go")
			var be *BlockedError
			if c.topErr {
				if !errors.As(err, &be) || be.Block.Event != string(c.ev) || be.Block.Reason != "no "+string(c.ev)+" today" || be.Block.By != "guard" {
					t.Fatalf("err = %v", err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				tm := toolMessages(f.srv.Requests()[1])
				if len(tm) != 1 || !strings.Contains(tm[0].Content, c.toModel) || !strings.Contains(tm[0].Content, "no "+string(c.ev)+" today") {
					t.Fatalf("tool result = %+v", tm)
				}
			}
			if used := len(f.srv.Requests()); used != c.replies {
				t.Fatalf("%d model requests, want %d", used, c.replies)
			}
			if len(f.rec.of(EvBlocked)) != 1 {
				t.Fatalf("blocked events: %+v", f.rec.of(EvBlocked))
			}
		})
	}
}

// TestArgsRewriteBeforePolicy: a before_tool hook moves a write into a
// denied directory; the policy judges the rewritten path and denies it.
func TestArgsRewriteBeforePolicy(t *testing.T) {
	f := newFixture(t)
	f.cfg.Hooks = engine(t, "s1", f.root, hook(t, "move", hooks.BeforeTool, "rewrite.py", "args.path", `"secret/x.txt"`))
	f.cfg.Policy = mustPolicy(t, "allow", schema.PolicyRule{Name: "no-secret", Tool: "write_file", Action: "deny",
		When: &schema.Condition{Arg: "path", StartsWith: "secret/"}})
	f.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "ok.txt", "content": "x"}))
	f.srv.Reply(llmtest.Text("ok"))
	if _, err := f.session(t).Run(context.Background(), "write"); err != nil {
		t.Fatal(err)
	}
	dec := f.rec.of(EvToolDecision)
	if len(dec) != 1 || dec[0].Tool.Decision.Action != "deny" || !strings.Contains(string(dec[0].Tool.Args), "secret/x.txt") {
		t.Fatalf("decision = %+v", dec)
	}
	if _, err := os.Stat(filepath.Join(f.root, "ok.txt")); err == nil {
		t.Fatal("the original path was written")
	}
	tm := toolMessages(f.srv.Requests()[1])
	if len(tm) != 1 || !strings.Contains(tm[0].Content, "denies") {
		t.Fatalf("tool result = %+v", tm)
	}
}

// TestRewritesAndSystemMessages: prompt, available tools, response and
// result rewrites take effect, and system messages enter the context.
func TestRewritesAndSystemMessages(t *testing.T) {
	f := newFixture(t)
	t.Setenv("SYSTEM_MESSAGE", "be careful")
	f.cfg.Hooks = engine(t, "s1", f.root,
		hook(t, "p", hooks.BeforeAgent, "rewrite.py", "prompt", `"rewritten prompt"`),
		hook(t, "sel", hooks.BeforeToolSelection, "rewrite.py", "available_tools", `["read_file","nonexistent"]`),
		hook(t, "res", hooks.AfterTool, "rewrite.py", "result", `"censored"`),
		hook(t, "resp", hooks.AfterModel, "rewrite.py", "response", `"shown to the user"`),
	)
	os.WriteFile(filepath.Join(f.root, "a.txt"), []byte("alpha"), 0o644)
	f.srv.Reply(llmtest.ToolCall("read_file", map[string]any{"path": "a.txt"}))
	f.srv.Reply(llmtest.Text("original answer"))
	rep, err := f.session(t).Run(context.Background(), "hello")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Text != "shown to the user" || rep.Original != "original answer" {
		t.Fatalf("reply = %+v", rep)
	}
	reqs := f.srv.Requests()
	if names := llmtest.ToolNames(reqs[0].Tools); !slices.Equal(names, []string{"read_file"}) {
		t.Fatalf("tools offered = %v", names)
	}
	var users, systems []string
	for _, m := range reqs[1].Messages {
		switch m.Role {
		case "user":
			users = append(users, m.Content)
		case "system":
			systems = append(systems, m.Content)
		}
	}
	if !slices.Equal(users, []string{"rewritten prompt"}) || len(systems) < 3 || systems[0] != "be careful" {
		t.Fatalf("users %q systems %q", users, systems)
	}
	if tm := toolMessages(reqs[1]); len(tm) != 1 || tm[0].Content != "censored" {
		t.Fatalf("tool result = %+v", tm)
	}
	if as := f.rec.of(EvAssistant); len(as) != 2 || as[1].Text != "shown to the user" || as[1].Message.Content != "original answer" {
		t.Fatalf("assistant events = %+v", as)
	}
}

// TestAskAnswers: yes runs the call, no refuses it with the user's
// feedback, always runs it and every later call of it without asking;
// with nobody to answer, the refusal names the rule.
func TestAskAnswers(t *testing.T) {
	for _, a := range []bus.Answer{bus.AllowOnce, bus.Deny, bus.AllowAlways, ""} {
		name := string(a)
		if a == "" {
			name = "headless"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.cfg.Policy = mustPolicy(t, "allow", schema.PolicyRule{Name: "writes-ask", Tool: "write_file", Action: "ask"})
			f.cfg.Bus = bus.New(bus.Options{})
			if a != "" {
				seen := answer(t, f.cfg.Bus, a)
				t.Cleanup(func() {
					want := 2
					if a == bus.AllowAlways {
						want = 1
					}
					if len(*seen) != want {
						t.Errorf("asked %d times, want %d", len(*seen), want)
					}
				})
			}
			f.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "a.txt", "content": "1"}))
			f.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "b.txt", "content": "2"}))
			f.srv.Reply(llmtest.Text("ok"))
			if _, err := f.session(t).Run(context.Background(), "write two"); err != nil {
				t.Fatal(err)
			}
			_, errA := os.Stat(filepath.Join(f.root, "a.txt"))
			_, errB := os.Stat(filepath.Join(f.root, "b.txt"))
			wrote := errA == nil && errB == nil
			if wrote != a.Allowed() {
				t.Fatalf("files written: %v, %v", errA, errB)
			}
			tm := toolMessages(f.srv.Requests()[1])
			switch a {
			case bus.Deny:
				if !strings.Contains(tm[0].Content, "the user denied this call") {
					t.Fatalf("result = %q", tm[0].Content)
				}
				// The block names what happened even without feedback.
				bs := f.rec.of(EvBlocked)
				if len(bs) != 2 {
					t.Fatalf("%d blocked events, want 2", len(bs))
				}
				for _, e := range bs {
					if e.Block.Event != "confirmation" || e.Block.Reason != "you answered no" {
						t.Fatalf("block = %+v", e.Block)
					}
				}
			case "":
				if !strings.Contains(tm[0].Content, `rule rules[0] "writes-ask"`) || !strings.Contains(tm[0].Content, "no one can answer") {
					t.Fatalf("result = %q", tm[0].Content)
				}
			}
		})
	}
}

// TestSkillRun renders a skill and runs it as the prompt.
func TestSkillRun(t *testing.T) {
	f := newFixture(t)
	reg := skillsRegistry(t, schema.Skill{Name: "review", Description: "review a file", Prompt: "Review {file} for bugs."})
	f.srv.Reply(llmtest.Text("looks fine"))
	rep, err := f.session(t).RunSkill(context.Background(), reg, "review", map[string]string{"file": "main.go"})
	if err != nil || rep.Text != "looks fine" {
		t.Fatalf("%+v %v", rep, err)
	}
	if got := f.srv.LastRequest().Messages[0].Content; got != "Review main.go for bugs." {
		t.Fatalf("prompt sent = %q", got)
	}
	if _, err := f.session(t).RunSkill(context.Background(), reg, "review", nil); err == nil || !strings.Contains(err.Error(), "file") {
		t.Fatalf("missing placeholder: %v", err)
	}
}

// TestResume saves a session, resumes it by id and as the latest, and
// sends the rebuilt history.
func TestResume(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	tr, err := Create(dir, "first", f.root, llmtest.DefaultModel, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Transcript, f.cfg.System = tr, "you are terse"
	os.WriteFile(filepath.Join(f.root, "a.txt"), []byte("alpha"), 0o644)
	f.srv.Reply(llmtest.ToolCall("read_file", map[string]any{"path": "a.txt"}))
	f.srv.Reply(llmtest.Text("it says alpha"))
	s := f.session(t)
	if _, err := s.Run(context.Background(), "read a"); err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())
	want := s.Messages()

	for _, id := range []string{"first", ""} {
		tr2, got, msgs, err := Resume(dir, id, nil)
		if err != nil || got != "first" {
			t.Fatalf("resume %q: %v %v", id, got, err)
		}
		if len(msgs) != len(want) || msgs[0].Content != "you are terse" || msgs[2].ToolCalls[0].Name != "read_file" || msgs[4].Content != "it says alpha" {
			t.Fatalf("history = %+v", msgs)
		}
		f.cfg.Transcript, f.cfg.History = tr2, msgs
		f.srv.Reply(llmtest.Text("still alpha"))
		s2 := f.session(t)
		if _, err := s2.Run(context.Background(), "and now?"); err != nil {
			t.Fatal(err)
		}
		sent := f.srv.LastRequest().Messages
		if len(sent) != len(want)+1 || sent[3].Role != "tool" || sent[3].Content == "" {
			t.Fatalf("sent = %+v", sent)
		}
		s2.Close(context.Background())
		want, _ = Load(Path(dir, "first"))
	}
	if _, _, _, err := Resume(t.TempDir(), "", nil); err == nil || !strings.Contains(err.Error(), "no saved sessions") {
		t.Fatalf("empty dir: %v", err)
	}
	raw, _ := os.ReadFile(Path(dir, "first"))
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Type == "" {
			t.Fatalf("line %d %q: %v", i+1, line, err)
		}
	}
}

func skillsRegistry(t *testing.T, list ...schema.Skill) *skills.Registry {
	reg := skills.New()
	if errs := reg.AddProfile(list); len(errs) > 0 {
		t.Fatal(errs)
	}
	return reg
}
