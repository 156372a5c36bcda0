package bus

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollm/ollm/core/policy"
)

// Confirmations that are not tool calls carry these names as
// Details.Tool (no tool can be named so): an MCP server asking the user
// for input, whose typed answer becomes the response's Feedback, and an
// MCP server asking to use the session's model.
const (
	ElicitTool = "mcp/elicitation"
	SampleTool = "mcp/sampling"
)

// Answer is the user's answer to a confirmation.
type Answer string

const (
	AllowOnce   Answer = "allow_once"   // run this call
	AllowAlways Answer = "allow_always" // run it and save an allow rule
	// AllowAlwaysNarrow runs it and saves the narrower rule the
	// confirmation offered (Details.AlwaysNarrow: `git status`, not every
	// git command).
	AllowAlwaysNarrow Answer = "allow_always_narrow"
	Deny              Answer = "deny" // refuse; Feedback tells the model why
)

// Allowed reports whether the call may run.
func (a Answer) Allowed() bool { return a == AllowOnce || a == AllowAlways || a == AllowAlwaysNarrow }

// Request is a pending confirmation.
type Request struct {
	ID       string         `json:"id"`
	Details  policy.Details `json:"details"`
	Deadline time.Time      `json:"deadline,omitempty"` // zero: no timeout
}

// Response answers the request with the same ID.
type Response struct {
	ID       string `json:"id"`
	Answer   Answer `json:"answer"`
	Feedback string `json:"feedback,omitempty"` // optional text for the model
	Headless bool   `json:"headless,omitempty"` // nobody could answer; the bus denied
}

// DefaultTimeout is how long a request waits when Options.Timeout is zero.
const DefaultTimeout = 5 * time.Minute

// ErrTimeout is returned (wrapped in a *TimeoutError) when nobody answered
// in time.
var ErrTimeout = errors.New("confirmation timed out")

// ErrNotPending is returned by Respond for an id that is not waiting: it
// was answered, timed out or cancelled, or never existed.
var ErrNotPending = errors.New("no such pending confirmation")

// TimeoutError says which request timed out and after how long.
type TimeoutError struct {
	ID    string
	Tool  string
	After time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("confirmation %s for %s timed out after %s without an answer", e.ID, e.Tool, e.After)
}

func (e *TimeoutError) Unwrap() error { return ErrTimeout }

// Options configure a Bus.
type Options struct {
	Timeout time.Duration // per request; 0 means DefaultTimeout, <0 none
}

// Bus routes confirmation requests and answers. The zero value is not
// usable; call New.
type Bus struct {
	timeout time.Duration
	mu      sync.Mutex
	pending map[string]*waiter
	subs    map[*subscriber]struct{}
	seq     uint64 // orders pending requests
}

type waiter struct {
	req Request
	seq uint64
	ch  chan Response // buffered: the resolver never blocks
}

// New returns an empty bus.
func New(o Options) *Bus {
	t := o.Timeout
	if t == 0 {
		t = DefaultTimeout
	}
	return &Bus{timeout: t, pending: map[string]*waiter{}, subs: map[*subscriber]struct{}{}}
}

// Ask publishes a confirmation request and waits for its answer. It
// returns a *TimeoutError when nobody answers in time and the context's
// error when ctx ends first. With no subscriber able to answer, it returns
// a deny at once, saying which rule asked.
func (b *Bus) Ask(ctx context.Context, d policy.Details) (Response, error) {
	w, denied := b.enqueue(d)
	if denied != nil {
		return *denied, nil
	}
	var timeout <-chan time.Time
	if b.timeout > 0 {
		t := time.NewTimer(b.timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case r := <-w.ch:
		return r, nil
	case <-timeout:
		return b.abandon(w, &TimeoutError{ID: w.req.ID, Tool: d.Tool, After: b.timeout})
	case <-ctx.Done():
		return b.abandon(w, fmt.Errorf("confirmation %s for %s: %w", w.req.ID, d.Tool, context.Cause(ctx)))
	}
}

// enqueue registers a request and tells the subscribers. When no
// subscriber can answer it returns the headless deny instead (observers
// still see it).
func (b *Bus) enqueue(d policy.Details) (*waiter, *Response) {
	b.mu.Lock()
	defer b.mu.Unlock()
	req := Request{ID: b.newID(), Details: d}
	if !b.answerable() {
		r := headless(req.ID, d)
		b.publish(Event{Kind: Withdrawn, Request: req, Response: &r, Err: "no one can answer"})
		return nil, &r
	}
	if b.timeout > 0 {
		req.Deadline = time.Now().Add(b.timeout)
	}
	b.seq++
	w := &waiter{req: req, seq: b.seq, ch: make(chan Response, 1)}
	b.pending[req.ID] = w
	b.publish(Event{Kind: Requested, Request: req})
	return w, nil
}

// abandon withdraws a request that timed out or was cancelled, unless an
// answer won the race, in which case the answer stands.
func (b *Bus) abandon(w *waiter, err error) (Response, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, still := b.pending[w.req.ID]; !still {
		return <-w.ch, nil
	}
	delete(b.pending, w.req.ID)
	b.publish(Event{Kind: Withdrawn, Request: w.req, Err: err.Error()})
	return Response{}, err
}

// Respond delivers an answer to the request with r.ID.
func (b *Bus) Respond(r Response) error {
	switch r.Answer {
	case AllowOnce, AllowAlways, AllowAlwaysNarrow, Deny:
	default:
		return fmt.Errorf("answer %q to confirmation %s: use %s, %s or %s", r.Answer, r.ID, AllowOnce, AllowAlways, Deny)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.pending[r.ID]
	if !ok {
		return fmt.Errorf("%w %q: it was answered, timed out or cancelled", ErrNotPending, r.ID)
	}
	delete(b.pending, r.ID)
	w.ch <- r
	b.publish(Event{Kind: Answered, Request: w.req, Response: &r})
	return nil
}

// Pending lists the requests waiting for an answer, oldest first.
func (b *Bus) Pending() []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	ws := make([]*waiter, 0, len(b.pending))
	for _, w := range b.pending {
		ws = append(ws, w)
	}
	slices.SortFunc(ws, func(a, b *waiter) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]Request, len(ws))
	for i, w := range ws {
		out[i] = w.req
	}
	return out
}

// newID returns a correlation id not in use. Called with b.mu held.
func (b *Bus) newID() string {
	for {
		var buf [8]byte
		_, _ = rand.Read(buf[:])
		id := hex.EncodeToString(buf[:])
		if _, taken := b.pending[id]; !taken {
			return id
		}
	}
}

// headless is the answer when nobody can be asked.
func headless(id string, d policy.Details) Response {
	if d.Trust != "" {
		return Response{ID: id, Answer: Deny, Headless: true, Feedback: TrustRefusal(d, "no one can answer in this session")}
	}
	who := "the default action (ask)"
	if d.Rule != nil {
		who = "rule " + d.Rule.Label()
	}
	return Response{ID: id, Answer: Deny, Headless: true, Feedback: fmt.Sprintf(
		"%s needs confirmation (%s asked: %s), but no one can answer in this session; "+
			"run ollm interactively, or add an allow rule for it to the profile", d.Tool, who, d.Reason)}
}

// TrustRefusal is the refusal of a write to a file that decides what runs
// (d.Trust) when no person can confirm it; why says who could not.
func TrustRefusal(d policy.Details, why string) string {
	what := strings.TrimSpace(d.Description)
	if what == "" {
		what = d.Tool + ": " + d.Trust
	}
	file := "the file"
	if len(d.Locations) > 0 {
		file = d.Locations[0]
	}
	return fmt.Sprintf("refused: %s. ollm writes a file that decides what runs only when a person confirms that exact call "+
		"in a dialog, in every mode and under every allow rule; %s, so nothing was written. "+
		"If the change is wanted, the user makes it by hand (edit %s), or runs ollm in a terminal and answers its question",
		what, why, file)
}
