package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// fnTool is a test tool whose calls run fn.
type fnTool struct {
	name string
	kind tool.Kind
	fn   func(ctx context.Context) tool.Result
}

func (t *fnTool) Name() string         { return t.name }
func (t *fnTool) Description() string  { return "test tool " + t.name }
func (t *fnTool) Schema() *tool.Schema { return &tool.Schema{Type: "object"} }
func (t *fnTool) Kind() tool.Kind      { return t.kind }
func (t *fnTool) Build(p json.RawMessage) (tool.Invocation, error) {
	return &fnInv{t: t, params: tool.NormalizeParams(p)}, nil
}

type fnInv struct {
	t      *fnTool
	params json.RawMessage
}

func (i *fnInv) Params() json.RawMessage          { return i.params }
func (i *fnInv) Description() string              { return i.t.name }
func (i *fnInv) Locations() []string              { return nil }
func (i *fnInv) Confirmation() *tool.Confirmation { return nil }
func (i *fnInv) Execute(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
	return i.t.fn(ctx), nil
}

// TestReadOnlyCallsRunInParallel: two read-only calls of one reply wait
// for each other, so they finish only if they run at the same time; a
// write after them runs alone, and a read after the write starts only
// once the write is done.
func TestReadOnlyCallsRunInParallel(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var log []string
	note := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	both := make(chan struct{}, 2)
	barrier := func(name string) func(ctx context.Context) tool.Result {
		return func(ctx context.Context) tool.Result {
			note(name + " start")
			both <- struct{}{}
			for len(both) < 2 {
				select {
				case <-ctx.Done():
					return tool.CancelledResult(ctx.Err())
				case <-time.After(time.Millisecond):
				}
			}
			note(name + " end")
			return tool.OK(name)
		}
	}
	f.cfg.Tools = tool.NewRegistry(
		&fnTool{name: "ro_a", kind: tool.KindRead, fn: barrier("a")},
		&fnTool{name: "ro_b", kind: tool.KindSearch, fn: barrier("b")},
		&fnTool{name: "edit", kind: tool.KindEdit, fn: func(context.Context) tool.Result { note("edit"); return tool.OK("edited") }},
		&fnTool{name: "ro_c", kind: tool.KindRead, fn: func(context.Context) tool.Result { note("c"); return tool.OK("c") }},
	)
	f.srv.Reply(llmtest.ToolCall("ro_a", nil), llmtest.ToolCall("ro_b", nil), llmtest.ToolCall("edit", nil), llmtest.ToolCall("ro_c", nil))
	f.srv.Reply(llmtest.Text("ok"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard against a hang, not a timing assertion
	defer cancel()
	if _, err := f.session(t).Run(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	tm := toolMessages(f.srv.Requests()[1])
	var got []string
	for _, m := range tm {
		got = append(got, m.Content)
	}
	if strings.Join(got, ",") != "a,b,edited,c" {
		t.Fatalf("results in order = %v (log %v)", got, log)
	}
	if n := len(log); n != 6 || log[4] != "edit" || log[5] != "c" {
		t.Fatalf("execution log = %v", log)
	}
}

// TestCancelCancelsTheTurnNotTheSession: cancelling while the model is
// loading, and while a tool runs, ends that prompt with ErrCancelled; the
// next prompt runs on the same session with a consistent history.
func TestCancelCancelsTheTurnNotTheSession(t *testing.T) {
	f := newFixture(t)
	started := make(chan struct{})
	f.cfg.Tools = tool.NewRegistry(&fnTool{name: "wait", kind: tool.KindExecute, fn: func(ctx context.Context) tool.Result {
		close(started)
		<-ctx.Done()
		return tool.CancelledResult(ctx.Err())
	}})
	s := f.session(t)

	loading := make(chan struct{})
	f.srv.Reply(llmtest.Signal(loading), llmtest.Hang())
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-loading; cancel() }()
	if _, err := s.Run(ctx, "first"); !errors.Is(err, ErrCancelled) {
		t.Fatalf("err = %v", err)
	}

	f.srv.Reply(llmtest.ToolCall("wait", nil))
	ctx, cancel = context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	if _, err := s.Run(ctx, "second"); !errors.Is(err, ErrCancelled) {
		t.Fatalf("err = %v", err)
	}

	f.srv.Reply(llmtest.Text("still here"))
	rep, err := s.Run(context.Background(), "third")
	if err != nil || rep.Text != "still here" {
		t.Fatalf("%+v %v", rep, err)
	}
	var roles []string
	for _, m := range f.srv.LastRequest().Messages {
		roles = append(roles, m.Role+":"+m.Content)
	}
	want := "user:first,user:second,assistant:,tool:Error (cancelled): the call was cancelled: context canceled,user:third"
	if strings.Join(roles, ",") != want {
		t.Fatalf("history = %v", roles)
	}
}

// TestTurnLimit stops a prompt after MaxTurns model requests.
func TestTurnLimit(t *testing.T) {
	f := newFixture(t)
	f.cfg.MaxTurns = 2
	f.cfg.Tools = tool.NewRegistry(&fnTool{name: "again", kind: tool.KindRead, fn: func(context.Context) tool.Result { return tool.OK("x") }})
	f.srv.Reply(llmtest.ToolCall("again", nil))
	f.srv.Reply(llmtest.ToolCall("again", nil))
	_, err := f.session(t).Run(context.Background(), "loop")
	var tl *TurnLimitError
	if !errors.As(err, &tl) || tl.Max != 2 || !strings.Contains(err.Error(), "agent.maxTurns") {
		t.Fatalf("err = %v", err)
	}
}

// TestServerContextOverflowCompactsAndRetries: when the server says the
// conversation does not fit, on_context_overflow fires, the conversation
// is compacted and the request is sent once more.
func TestServerContextOverflowCompactsAndRetries(t *testing.T) {
	f := newFixture(t)
	logPath := t.TempDir() + "/events.jsonl"
	t.Setenv("EVENT_LOG", logPath)
	f.cfg.Hooks = engine(t, "s1", f.root, hook(t, "log", hooks.OnContextOverflow, "log.sh"))
	f.srv.Reply(llmtest.Text("first answer"))
	f.srv.Reply(llmtest.HTTPError(400, "input exceeds the context length"))
	f.srv.Reply(llmtest.Text("summary of first"))
	f.srv.Reply(llmtest.Text("second answer"))
	s := f.session(t)
	if _, err := s.Run(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Run(context.Background(), "second")
	if err != nil || rep.Text != "second answer" {
		t.Fatalf("%+v %v", rep, err)
	}
	if got := hookLog(t, logPath); len(got) != 1 {
		t.Fatalf("on_context_overflow fired %d times", len(got))
	}
	last := f.srv.LastRequest().Messages
	if len(last) != 2 || last[0].Role != "system" || !strings.Contains(last[0].Content, "summary of first") || last[1].Content != "second" {
		t.Fatalf("retried with %+v", last)
	}
}

// TestAlwaysAllowIsReported: the rules an "always" answer adds reach
// OnAlwaysAllow so the caller can save them.
func TestAlwaysAllowIsReported(t *testing.T) {
	f := newFixture(t)
	f.cfg.Policy = mustPolicy(t, "ask")
	f.cfg.Bus = bus.New(bus.Options{})
	answer(t, f.cfg.Bus, bus.AllowAlways)
	var got []schema.PolicyRule
	f.cfg.OnAlwaysAllow = func(r []schema.PolicyRule) { got = append(got, r...) }
	f.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "a.txt", "content": "1"}))
	f.srv.Reply(llmtest.Text("ok"))
	if _, err := f.session(t).Run(context.Background(), "write"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Tool != "write_file" || got[0].Action != "allow" {
		t.Fatalf("rules = %+v", got)
	}
}
