package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
)

// maxSSELine bounds one line of the event stream (a long tool call can
// arrive in one piece).
const maxSSELine = 8 << 20

// readSSE calls fn with the data of each server-sent event in r, until
// "[DONE]", the end of r, or an error from fn.
func readSSE(r io.Reader, fn func(data []byte) (stop bool)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxSSELine)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(data) > 0 && fn(data) {
				return nil
			}
			data = data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(line[5:], []byte(" "))...)
		}
		// comments (":...") and "event:", "id:", "retry:" fields are ignored
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(data) > 0 {
		fn(data)
	}
	return nil
}

// oaStream folds chat completion chunks into events and one Response.
// Tool calls arrive in pieces keyed by index and are emitted whole when
// the choice finishes.
type oaStream struct {
	onEvent   func(Event)
	newID     func() string
	content   strings.Builder
	thinking  strings.Builder
	calls     []*oaPartial // in order of first appearance
	finish    string
	done      bool // "[DONE]" seen
	usage     Usage
	serverErr string
}

type oaPartial struct {
	index int
	id    string
	name  string
	args  strings.Builder
}

func newOAStream(onEvent func(Event), newID func() string) *oaStream {
	return &oaStream{onEvent: onEvent, newID: newID}
}

func (s *oaStream) emit(e Event) {
	if s.onEvent != nil {
		s.onEvent(e)
	}
}

// data handles one event's data and reports whether the stream is over.
func (s *oaStream) data(b []byte) bool {
	if string(b) == "[DONE]" {
		s.done = true
		return true
	}
	var c oaChunk
	if err := json.Unmarshal(b, &c); err != nil {
		s.serverErr = "the stream carried something that is not a chat completion chunk: " + truncate(string(b), 200)
		return true
	}
	if c.Error != nil {
		s.serverErr = c.Error.Message
		return true
	}
	if c.Usage != nil {
		s.usage = Usage{PromptTokens: c.Usage.PromptTokens, CompletionTokens: c.Usage.CompletionTokens}
	}
	for _, ch := range c.Choices {
		if ch.Index == 0 {
			s.choice(ch)
		}
	}
	return false
}

func (s *oaStream) choice(ch oaChoice) {
	if t := ch.Delta.ReasoningContent + ch.Delta.Reasoning; t != "" {
		s.thinking.WriteString(t)
		s.emit(Event{Kind: EventThinking, Text: t})
	}
	if t := ch.Delta.Content; t != "" {
		s.content.WriteString(t)
		s.emit(Event{Kind: EventContent, Text: t})
	}
	for _, tc := range ch.Delta.ToolCalls {
		s.toolDelta(tc)
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" && s.finish == "" {
		s.finish = *ch.FinishReason
		for _, c := range s.toolCalls() {
			s.emit(Event{Kind: EventToolCall, ToolCall: c})
		}
	}
}

// toolDelta adds one piece of a tool call: the id and name come once, the
// arguments in any number of pieces.
func (s *oaStream) toolDelta(tc oaToolCall) {
	p := s.partial(tc)
	if p.id == "" {
		p.id = tc.ID
	}
	if p.name == "" {
		p.name = tc.Function.Name
	}
	p.args.WriteString(tc.Function.Arguments)
}

// partial finds the call a delta belongs to. Servers that leave out the
// index send one call at a time: a new id starts a new call.
func (s *oaStream) partial(tc oaToolCall) *oaPartial {
	idx := len(s.calls) - 1
	if tc.Index != nil {
		idx = *tc.Index
	} else if tc.ID != "" && (idx < 0 || s.calls[idx].id != tc.ID) {
		idx = len(s.calls)
	}
	for _, p := range s.calls {
		if p.index == idx {
			return p
		}
	}
	p := &oaPartial{index: idx}
	s.calls = append(s.calls, p)
	return p
}

// toolCalls returns the assembled calls by index, naming any without an id.
func (s *oaStream) toolCalls() []ToolCall {
	sorted := slices.Clone(s.calls)
	slices.SortStableFunc(sorted, func(a, b *oaPartial) int { return a.index - b.index })
	out := make([]ToolCall, 0, len(sorted))
	for _, p := range sorted {
		if p.id == "" {
			p.id = s.newID()
		}
		out = append(out, ToolCall{ID: p.id, Name: p.name, Arguments: jsonOrString(p.args.String())})
	}
	return out
}

// complete reports whether the server said the reply was over.
func (s *oaStream) complete() bool { return s.done || s.finish != "" }

func (s *oaStream) response() Response {
	var calls []ToolCall
	if len(s.calls) > 0 {
		calls = s.toolCalls()
	}
	return Response{
		Message: Message{
			Role:      RoleAssistant,
			Content:   s.content.String(),
			Thinking:  s.thinking.String(),
			ToolCalls: calls,
		},
		DoneReason: s.doneReason(),
		Usage:      s.usage,
	}
}

// doneReason is the finish reason, or "stop" for a server that ended
// with [DONE] without giving one.
func (s *oaStream) doneReason() string {
	if s.finish == "" && s.done {
		return DoneStop
	}
	return s.finish
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
