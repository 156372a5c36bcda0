package llmtest

import (
	"encoding/json"
	"net/http"
	"time"
	"unicode/utf8"
)

// OpenAIRequest is a /v1/chat/completions request as the fake received it.
type OpenAIRequest struct {
	Model         string          `json:"model"`
	Messages      []OpenAIMessage `json:"messages"`
	Tools         []Tool          `json:"tools"`
	Stream        bool            `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Body          map[string]any  `json:"-"` // the whole body, for options such as temperature
	Raw           json.RawMessage `json:"-"`
	Authorization string          `json:"-"` // the Authorization header
}

func (r OpenAIRequest) contents() []string {
	var out []string
	for _, m := range r.Messages {
		if s, ok := m.Content.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// OpenAIMessage is one message of a chat completion request.
type OpenAIMessage struct {
	Role       string           `json:"role"`
	Content    any              `json:"content"` // string, parts, or nil
	ToolCalls  []OpenAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

// OpenAIToolCall is a tool call in a request; arguments are a JSON string.
type OpenAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// sse writes chat completion chunks as server-sent events.
type sse struct {
	w     http.ResponseWriter
	id    string
	model string
	piece int
}

func (o *sse) raw(s string) {
	_, _ = o.w.Write([]byte(s))
	if f, ok := o.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (o *sse) event(v any) {
	b, _ := json.Marshal(v)
	o.raw("data: " + string(b) + "\n\n")
}

func (o *sse) chunk(choices []map[string]any, usage map[string]any) {
	c := map[string]any{"id": o.id, "object": "chat.completion.chunk", "created": time.Now().Unix(),
		"model": o.model, "system_fingerprint": "llmtest", "choices": choices}
	if usage != nil {
		c["usage"] = usage
	}
	o.event(c)
}

func (o *sse) delta(d map[string]any) {
	o.chunk([]map[string]any{{"index": 0, "delta": d, "logprobs": nil, "finish_reason": nil}}, nil)
}

// toolCall sends the id and name first, then the arguments in pieces.
func (o *sse) toolCall(index int, id string, c Call) {
	first := map[string]any{"index": index, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}
	if id != "" {
		first["id"] = id
	}
	o.delta(map[string]any{"tool_calls": []any{first}})
	args := c.Args
	if args == nil {
		args = map[string]any{}
	}
	b, _ := json.Marshal(args)
	for s := string(b); s != ""; {
		n := min(o.piece, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++ // pieces are whole characters, as a server's tokens are
		}
		o.delta(map[string]any{"tool_calls": []any{map[string]any{"index": index, "function": map[string]any{"arguments": s[:n]}}}})
		s = s[n:]
	}
}

// finish sends the finish reason, the usage chunk when asked for, and
// [DONE].
func (o *sse) finish(r reply, includeUsage bool) {
	reason := r.reason
	if reason == "" {
		reason = "stop"
		if r.calls > 0 {
			reason = "tool_calls"
		}
	}
	o.chunk([]map[string]any{{"index": 0, "delta": map[string]any{}, "logprobs": nil, "finish_reason": reason}}, nil)
	if includeUsage {
		prompt, completion := r.prompt, r.counted
		if r.setTokens {
			completion = r.completion
		}
		o.chunk([]map[string]any{}, map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion})
	}
	o.raw("data: [DONE]\n\n")
}
