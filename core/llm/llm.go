package llm

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ollm/ollm/core/tool"
)

// Provider is a model server the agent can chat with. Implementations are
// safe for concurrent use; each Chat keeps its own state.
type Provider interface {
	// Chat sends the conversation and streams the reply: onEvent (which may
	// be nil) is called for each content or thinking delta, each finished
	// tool call and, last, once with EventDone. Chat returns the whole reply.
	// When ctx is cancelled the stream stops, the error wraps ctx.Err() and
	// the Response holds what arrived before.
	Chat(ctx context.Context, req Request, onEvent func(Event)) (Response, error)
	// ModelInfo describes a model, above all its context window. An empty
	// name means the provider's configured model.
	ModelInfo(ctx context.Context, name string) (Info, error)
}

// Role is who said a message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one message of the conversation.
type Message struct {
	Role     Role   `json:"role"`
	Content  string `json:"content"`
	Thinking string `json:"thinking,omitempty"` // assistant reasoning, when the model thinks
	// ToolCalls are the calls an assistant message asked for.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID and ToolName say which call a RoleTool message answers.
	ToolCallID string   `json:"toolCallId,omitempty"`
	ToolName   string   `json:"toolName,omitempty"`
	Images     [][]byte `json:"images,omitempty"` // raw image bytes (PNG, JPEG, ...)
}

// ToolCall is one call of a tool the model asked for.
type ToolCall struct {
	// ID is unique within the conversation. When the server sends none the
	// provider makes one, so a tool result can always name its call.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is always valid JSON, normally an object. Arguments a server
	// sent that were not valid JSON arrive as a JSON string holding the raw
	// text, so the tool's validation fails and tells the model why.
	Arguments json.RawMessage `json:"arguments"`
}

// jsonOrString returns raw when it is valid JSON and raw as a JSON string
// otherwise, so ToolCall.Arguments is always valid JSON.
func jsonOrString(raw string) json.RawMessage {
	if raw == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(raw)) {
		return json.RawMessage(raw)
	}
	b, _ := json.Marshal(raw)
	return b
}

// ToolResult builds the message that answers call with content.
func ToolResult(call ToolCall, content string) Message {
	return Message{Role: RoleTool, Content: content, ToolCallID: call.ID, ToolName: call.Name}
}

// Request is one chat turn.
type Request struct {
	Model    string            // empty: the provider's configured model
	Messages []Message         // the whole conversation, system prompt first
	Tools    []tool.Definition // what the model may call
	// Options are model options (temperature, num_ctx, top_p, seed, ...)
	// laid over the profile's model.options, key by key.
	Options map[string]any
	// KeepAlive overrides the profile's model.keepAlive: a Go duration
	// ("10m"), a number of seconds, or "-1" for ever. Ollama only.
	KeepAlive string
	// Think turns reasoning on or off; nil leaves the model's default.
	// Ollama only: OpenAI-compatible servers take their own switch through
	// Options (llama.cpp and vLLM: "chat_template_kwargs").
	Think *bool
	// ThinkLevel ("low", "medium", "high") asks models that grade their
	// reasoning (gpt-oss) for that much; it overrides Think. Ollama only.
	ThinkLevel string
	// ToolChoice "required" makes the model call one of Tools (Gemini
	// CLI's toolConfig mode ANY). OpenAI-compatible servers only (sent as
	// tool_choice when there are tools): Ollama's /api/chat has no such
	// switch and ignores it; ForcesToolCalls tells which.
	ToolChoice string
}

// EventKind says what an Event carries.
type EventKind uint8

const (
	EventContent  EventKind = iota + 1 // Text is a delta of the answer
	EventThinking                      // Text is a delta of the reasoning
	EventToolCall                      // ToolCall is complete
	EventDone                          // the reply is complete; Usage and DoneReason are set
)

func (k EventKind) String() string {
	switch k {
	case EventContent:
		return "content"
	case EventThinking:
		return "thinking"
	case EventToolCall:
		return "tool_call"
	case EventDone:
		return "done"
	}
	return "unknown"
}

// Event is one piece of a streamed reply.
type Event struct {
	Kind       EventKind
	Text       string
	ToolCall   ToolCall
	Usage      Usage
	DoneReason string
}

// Done reasons. Servers may send others; they are passed through.
const (
	DoneStop      = "stop"       // the model finished
	DoneLength    = "length"     // the token limit cut the reply short
	DoneToolCalls = "tool_calls" // OpenAI-compatible servers: stopped to call tools
)

// Response is a whole reply.
type Response struct {
	Message    Message // Role is RoleAssistant; ToolCalls in the order sent
	DoneReason string
	Usage      Usage
}

// Truncated reports whether the token limit cut the reply short.
func (r Response) Truncated() bool { return r.DoneReason == DoneLength }

// Usage is what one reply cost. Durations are zero when the server does
// not report them (OpenAI-compatible servers mostly don't).
type Usage struct {
	PromptTokens       int           `json:"promptTokens"`
	CompletionTokens   int           `json:"completionTokens"`
	TotalDuration      time.Duration `json:"totalDuration,omitempty"`
	LoadDuration       time.Duration `json:"loadDuration,omitempty"`
	PromptEvalDuration time.Duration `json:"promptEvalDuration,omitempty"`
	EvalDuration       time.Duration `json:"evalDuration,omitempty"`
}

// DefaultContextWindow is assumed when nothing says how large a model's
// context is. It is Ollama's smallest default num_ctx.
const DefaultContextWindow = 4096

// Info describes a model.
type Info struct {
	Name string
	// ContextWindow is the number of tokens the server will actually keep:
	// the profile's model.contextWindow when set, else what the server
	// reports, else DefaultContextWindow. ContextSource says which.
	ContextWindow int
	ContextSource string // "profile", "num_ctx", "running", "model", "default"
	// TrainedContext is the model's own limit (Ollama model_info
	// <arch>.context_length), 0 when unknown.
	TrainedContext int
	Family         string
	ParameterSize  string
	Quantization   string
	Capabilities   []string // Ollama: "completion", "tools", "thinking", "vision", ...
}

// Context sources.
const (
	ContextFromProfile = "profile"
	ContextFromNumCtx  = "num_ctx"
	ContextFromRunning = "running"
	ContextFromModel   = "model"
	ContextFromDefault = "default"
)
