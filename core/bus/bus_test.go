package bus

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollm/ollm/core/policy"
)

func details(tool string) policy.Details {
	return policy.Details{Tool: tool, Description: "Run " + tool, Risk: "high",
		Rule: &policy.RuleRef{Index: 2, Name: "ask-shell", Layer: "user", Tool: "shell"}, Reason: "rule matches: ask"}
}

// next reads one event or fails the test if the channel closes.
func next(t *testing.T, ch <-chan Event) Event {
	t.Helper()
	e, ok := <-ch
	if !ok {
		t.Fatal("subscription closed")
	}
	return e
}

// 8.1-8.3: a request gets an id, waits, and receives the answer with that id.
func TestAskAnswered(t *testing.T) {
	b := New(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := b.Subscribe(ctx, Answerer)
	type result struct {
		r   Response
		err error
	}
	done := make(chan result)
	go func() {
		r, err := b.Ask(context.Background(), details("shell"))
		done <- result{r, err}
	}()
	e := next(t, events)
	if e.Kind != Requested || e.Request.ID == "" || e.Request.Details.Tool != "shell" || e.Request.Deadline.IsZero() {
		t.Fatalf("event = %+v", e)
	}
	if p := b.Pending(); len(p) != 1 || p[0].ID != e.Request.ID {
		t.Fatalf("pending = %+v", p)
	}
	if err := b.Respond(Response{ID: e.Request.ID, Answer: Deny, Feedback: "use make test"}); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil || got.r.Answer != Deny || got.r.Feedback != "use make test" || got.r.Headless {
		t.Fatalf("result = %+v", got)
	}
	if e := next(t, events); e.Kind != Answered || e.Response.Answer != Deny {
		t.Fatalf("event = %+v", e)
	}
	if err := b.Respond(Response{ID: e.Request.ID, Answer: AllowOnce}); !errors.Is(err, ErrNotPending) {
		t.Fatalf("second answer: %v", err)
	}
	if len(b.Pending()) != 0 {
		t.Fatal("request still pending")
	}
}

// 8.5: several pending requests are answered independently, in any order.
func TestManyPendingIndependently(t *testing.T) {
	b := New(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := b.Subscribe(ctx, Answerer)
	const n = 50
	var wg sync.WaitGroup
	got := make([]Response, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := b.Ask(context.Background(), details(fmt.Sprintf("tool%d", i)))
			if err != nil {
				t.Error(err)
			}
			got[i] = r
		}()
	}
	reqs := map[string]string{} // id -> tool
	for len(reqs) < n {
		e := next(t, events)
		if e.Kind == Requested {
			if _, dup := reqs[e.Request.ID]; dup {
				t.Fatalf("duplicate id %s", e.Request.ID)
			}
			reqs[e.Request.ID] = e.Request.Details.Tool
		}
	}
	pending := b.Pending()
	if len(pending) != n {
		t.Fatalf("%d pending, want %d", len(pending), n)
	}
	for i := len(pending) - 1; i >= 0; i-- { // newest first
		id := pending[i].ID
		if err := b.Respond(Response{ID: id, Answer: AllowOnce, Feedback: reqs[id]}); err != nil {
			t.Error(err)
		}
	}
	wg.Wait()
	for i, r := range got {
		if r.Answer != AllowOnce || r.Feedback != fmt.Sprintf("tool%d", i) {
			t.Errorf("request %d got %+v", i, r)
		}
	}
}

// 8.4: nobody answers: a timeout error naming the request.
func TestAskTimeout(t *testing.T) {
	b := New(Options{Timeout: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := b.Subscribe(ctx, Answerer)
	_, err := b.Ask(context.Background(), details("shell"))
	var te *TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, ErrTimeout) || te.Tool != "shell" || te.After != 20*time.Millisecond {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "timed out after 20ms") {
		t.Errorf("message %q", err)
	}
	req := next(t, events)
	if e := next(t, events); e.Kind != Withdrawn || e.Request.ID != req.Request.ID || !strings.Contains(e.Err, "timed out") {
		t.Fatalf("event = %+v", e)
	}
	if err := b.Respond(Response{ID: req.Request.ID, Answer: AllowOnce}); !errors.Is(err, ErrNotPending) {
		t.Fatalf("late answer: %v", err)
	}
}

// 8.6: cancellation through the context.
func TestAskCancelled(t *testing.T) {
	b := New(Options{Timeout: -1})
	sub, stop := context.WithCancel(context.Background())
	defer stop()
	events := b.Subscribe(sub, Answerer)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := b.Ask(ctx, details("shell"))
		done <- err
	}()
	e := next(t, events)
	if !e.Request.Deadline.IsZero() {
		t.Error("a bus without timeout set a deadline")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), e.Request.ID) {
		t.Fatalf("err = %v", err)
	}
	if e := next(t, events); e.Kind != Withdrawn {
		t.Fatalf("event = %+v", e)
	}
}

// Headless: no subscriber that can answer means deny at once, naming the rule.
func TestHeadless(t *testing.T) {
	b := New(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := b.Subscribe(ctx, Observer)
	r, err := b.Ask(context.Background(), details("shell"))
	if err != nil || r.Answer != Deny || !r.Headless {
		t.Fatalf("r = %+v, err %v", r, err)
	}
	for _, want := range []string{"shell", `rules[2] "ask-shell" (user)`, "no one can answer"} {
		if !strings.Contains(r.Feedback, want) {
			t.Errorf("feedback %q does not say %q", r.Feedback, want)
		}
	}
	if e := next(t, log); e.Kind != Withdrawn || e.Response == nil || !e.Response.Headless {
		t.Fatalf("observer saw %+v", e)
	}
	d := details("grep")
	d.Rule = nil
	if r, _ := b.Ask(context.Background(), d); !strings.Contains(r.Feedback, "default action") {
		t.Errorf("feedback %q", r.Feedback)
	}
}

// When the last answerer leaves, waiting requests are denied, not left to
// time out.
func TestAnswererLeaves(t *testing.T) {
	b := New(Options{Timeout: -1})
	ctx, cancel := context.WithCancel(context.Background())
	events := b.Subscribe(ctx, Answerer)
	done := make(chan Response)
	go func() {
		r, _ := b.Ask(context.Background(), details("shell"))
		done <- r
	}()
	next(t, events)
	cancel()
	if r := <-done; r.Answer != Deny || !r.Headless {
		t.Fatalf("r = %+v", r)
	}
	for range events { // the channel closes
	}
}

func TestRespondValidates(t *testing.T) {
	b := New(Options{})
	if err := b.Respond(Response{ID: "x", Answer: "maybe"}); err == nil || !strings.Contains(err.Error(), "allow_once") {
		t.Fatalf("err = %v", err)
	}
	if err := b.Respond(Response{ID: "nope", Answer: Deny}); !errors.Is(err, ErrNotPending) {
		t.Fatalf("err = %v", err)
	}
	if !AllowAlways.Allowed() || !AllowOnce.Allowed() || Deny.Allowed() {
		t.Fatal("Allowed")
	}
}

// A subscriber that reads nothing does not block requests or others.
func TestSlowSubscriberDoesNotBlock(t *testing.T) {
	b := New(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_ = b.Subscribe(ctx, Observer) // never read
	events := b.Subscribe(ctx, Answerer)
	go func() {
		for e := range events {
			if e.Kind == Requested {
				_ = b.Respond(Response{ID: e.Request.ID, Answer: AllowAlways})
			}
		}
	}()
	for i := range 200 {
		if r, err := b.Ask(context.Background(), details(fmt.Sprint(i))); err != nil || r.Answer != AllowAlways {
			t.Fatalf("%d: %+v %v", i, r, err)
		}
	}
}
