package llmtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"time"
)

// ChatRequest is an /api/chat request as the fake Ollama received it.
type ChatRequest struct {
	Model     string          `json:"model"`
	Messages  []Message       `json:"messages"`
	Tools     []Tool          `json:"tools"`
	Options   map[string]any  `json:"options"`
	KeepAlive any             `json:"keep_alive"` // as sent: "10m0s", a number, nil
	Think     any             `json:"think"`      // as sent: true, false, "high", nil
	Stream    *bool           `json:"stream"`
	Raw       json.RawMessage `json:"-"` // the whole body
}

func (r *ChatRequest) setRaw(b []byte) { r.Raw = b }

func (r ChatRequest) contents() []string {
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.Content)
	}
	return out
}

// Message is one message of an /api/chat request.
type Message struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	Thinking   string         `json:"thinking,omitempty"`
	Images     []string       `json:"images,omitempty"` // base64
	ToolCalls  []WireToolCall `json:"tool_calls,omitempty"`
	ToolName   string         `json:"tool_name,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// WireToolCall is a tool call as Ollama sends and receives it.
type WireToolCall struct {
	ID       string       `json:"id,omitempty"`
	Function WireFunction `json:"function"`
}

// WireFunction is the function part of a tool call; arguments are a JSON
// object, not a string as in the OpenAI format.
type WireFunction struct {
	Index     int            `json:"index"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// Tool is a tool definition as received: {"type":"function","function":{...}}.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

// ToolNames lists the names of the tools offered, in order.
func ToolNames(tools []Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Function.Name
	}
	return out
}

// ollamaChunk is one line of the /api/chat stream. Durations are
// nanoseconds, as Ollama writes them.
type ollamaChunk struct {
	Model              string        `json:"model"`
	CreatedAt          time.Time     `json:"created_at"`
	Message            ollamaMessage `json:"message"`
	Done               bool          `json:"done"`
	DoneReason         string        `json:"done_reason,omitempty"`
	TotalDuration      int64         `json:"total_duration,omitempty"`
	LoadDuration       int64         `json:"load_duration,omitempty"`
	PromptEvalCount    int           `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration int64         `json:"prompt_eval_duration,omitempty"`
	EvalCount          int           `json:"eval_count,omitempty"`
	EvalDuration       int64         `json:"eval_duration,omitempty"`
}

type ollamaMessage struct {
	Role      string         `json:"role"`
	Content   string         `json:"content"`
	Thinking  string         `json:"thinking,omitempty"`
	ToolCalls []WireToolCall `json:"tool_calls,omitempty"`
}

// ndjson writes one JSON object per line and flushes each.
type ndjson struct {
	w     http.ResponseWriter
	model string
}

func (n *ndjson) write(v any) {
	if c, ok := v.(ollamaChunk); ok {
		c.Model, c.CreatedAt = n.model, time.Now().UTC()
		v = c
	}
	b, _ := json.Marshal(v)
	n.raw(string(append(b, '\n')))
}

func (n *ndjson) raw(s string) {
	_, _ = n.w.Write([]byte(s))
	if f, ok := n.w.(http.Flusher); ok {
		f.Flush()
	}
}

// done writes the final chunk: empty message, done_reason, token counts
// and durations (1 ms to load, 0.1 ms per prompt token, 10 ms per token).
func (n *ndjson) done(r reply) {
	prompt, eval := r.prompt, r.counted
	if r.setTokens {
		prompt, eval = r.prompt, r.completion
	}
	reason := r.reason
	if reason == "" {
		reason = "stop"
	}
	load, pe, ev := int64(time.Millisecond), int64(prompt)*int64(100*time.Microsecond), int64(eval)*int64(10*time.Millisecond)
	n.write(ollamaChunk{
		Message: ollamaMessage{Role: "assistant"}, Done: true, DoneReason: reason,
		TotalDuration: load + pe + ev, LoadDuration: load,
		PromptEvalCount: prompt, PromptEvalDuration: pe, EvalCount: eval, EvalDuration: ev,
	})
}

var modified = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func details(m Model) map[string]any {
	return map[string]any{"parent_model": "", "format": "gguf", "family": m.Family, "families": []string{m.Family},
		"parameter_size": m.ParameterSize, "quantization_level": m.Quantization}
}

func digest(name string) string {
	h := sha256.Sum256([]byte(name))
	return hex.EncodeToString(h[:])
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
