package bus

import (
	"context"
	"sync"
)

// EventKind says what happened to a request.
type EventKind string

const (
	Requested EventKind = "requested" // a request is waiting for an answer
	Answered  EventKind = "answered"  // Response holds the answer
	Withdrawn EventKind = "withdrawn" // timed out, cancelled, or nobody left to answer; Err says which
)

// Event is what subscribers receive.
type Event struct {
	Kind     EventKind `json:"kind"`
	Request  Request   `json:"request"`
	Response *Response `json:"response,omitempty"`
	Err      string    `json:"error,omitempty"`
}

// Role says whether a subscriber answers requests or only watches them.
type Role int

const (
	Answerer Role = iota // e.g. the TUI: requests wait for it
	Observer             // e.g. a log: it does not make a session interactive
)

// Subscribe returns a channel of every event from now until ctx ends; the
// channel is closed then. Events queue without bound, so the bus never
// waits for a subscriber. When the last answerer leaves, requests still
// pending resolve to a headless deny.
func (b *Bus) Subscribe(ctx context.Context, role Role) <-chan Event {
	s := &subscriber{role: role, wake: make(chan struct{}, 1), out: make(chan Event), done: ctx.Done()}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	go s.pump()
	context.AfterFunc(ctx, func() { b.unsubscribe(s) })
	return s.out
}

func (b *Bus) unsubscribe(s *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.subs, s)
	if b.answerable() {
		return
	}
	for id, w := range b.pending {
		delete(b.pending, id)
		r := headless(id, w.req.Details)
		w.ch <- r
		b.publish(Event{Kind: Withdrawn, Request: w.req, Response: &r, Err: "no one is left to answer"})
	}
}

// answerable reports whether some subscriber can answer. Called with b.mu
// held.
func (b *Bus) answerable() bool {
	for s := range b.subs {
		if s.role == Answerer {
			return true
		}
	}
	return false
}

// publish queues e for every subscriber. Called with b.mu held.
func (b *Bus) publish(e Event) {
	for s := range b.subs {
		s.push(e)
	}
}

// subscriber is one subscription with its own queue and goroutine.
type subscriber struct {
	role  Role
	mu    sync.Mutex
	queue []Event
	wake  chan struct{}
	out   chan Event
	done  <-chan struct{}
}

func (s *subscriber) push(e Event) {
	s.mu.Lock()
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// pump moves queued events to the channel until the subscription ends.
func (s *subscriber) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			}
		}
		e := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		select {
		case s.out <- e:
		case <-s.done:
			return
		}
	}
}
