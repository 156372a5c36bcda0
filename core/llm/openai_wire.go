package llm

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/ollm/ollm/core/tool"
)

// The /v1/chat/completions wire types: only the fields ollm sends or reads.

type oaMessage struct {
	Role       string       `json:"role"`
	Content    any          `json:"content"` // string, []oaPart, or nil beside tool calls
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

type oaPart struct {
	Type     string      `json:"type"` // "text" | "image_url"
	Text     string      `json:"text,omitempty"`
	ImageURL *oaImageURL `json:"image_url,omitempty"`
}

type oaImageURL struct {
	URL string `json:"url"`
}

type oaToolCall struct {
	Index    *int           `json:"index,omitempty"` // deltas only
	ID       string         `json:"id,omitempty"`
	Type     string         `json:"type,omitempty"`
	Function oaFunctionCall `json:"function"`
}

type oaFunctionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type oaTool struct {
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	Parameters  *tool.Schema `json:"parameters"`
}

type oaChunk struct {
	Choices []oaChoice `json:"choices"`
	Usage   *oaUsage   `json:"usage"`
	Error   *oaError   `json:"error"`
}

type oaChoice struct {
	Index        int     `json:"index"`
	Delta        oaDelta `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type oaDelta struct {
	Content          string       `json:"content"`
	ReasoningContent string       `json:"reasoning_content"` // llama.cpp, vLLM, DeepSeek
	Reasoning        string       `json:"reasoning"`         // Ollama's and others' compat layers
	ToolCalls        []oaToolCall `json:"tool_calls"`
}

type oaUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

type oaError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

// ollamaOnlyOptions are Ollama runner settings that mean nothing to an
// OpenAI-compatible server; they are not sent.
var ollamaOnlyOptions = []string{
	"num_ctx", "num_batch", "num_gpu", "main_gpu", "use_mmap", "num_thread",
	"num_keep", "low_vram", "numa", "f16_kv", "vocab_only", "use_mlock",
}

// oaBody builds the request body. Options pass through under their own
// names, except num_predict, which becomes max_tokens, and Ollama-only
// runner settings, which are dropped.
func oaBody(model string, msgs []Message, defs []tool.Definition, opts map[string]any) map[string]any {
	body := map[string]any{}
	for k, v := range opts {
		switch {
		case slices.Contains(ollamaOnlyOptions, k):
		case k == "num_predict":
			body["max_tokens"] = v
		default:
			body[k] = v
		}
	}
	body["model"] = model
	body["messages"] = oaMessages(msgs)
	body["stream"] = true
	body["stream_options"] = map[string]any{"include_usage": true}
	if tools := oaTools(defs); len(tools) > 0 {
		body["tools"] = tools
	}
	return body
}

func oaMessages(msgs []Message) []oaMessage {
	out := make([]oaMessage, len(msgs))
	for i, m := range msgs {
		out[i] = oaMessage{Role: string(m.Role), Content: oaContent(m), ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			out[i].ToolCalls = append(out[i].ToolCalls, oaToolCall{
				ID: c.ID, Type: "function",
				Function: oaFunctionCall{Name: c.Name, Arguments: string(jsonOrString(string(c.Arguments)))},
			})
		}
	}
	return out
}

// oaContent is a string, parts when there are images, or null for an
// assistant message that only calls tools. A tool message takes no image
// parts in this API: its images go unsent (its text names them).
func oaContent(m Message) any {
	if len(m.Images) == 0 || m.Role == RoleTool {
		if m.Content == "" && len(m.ToolCalls) > 0 {
			return nil
		}
		return m.Content
	}
	parts := []oaPart{{Type: "text", Text: m.Content}}
	for _, img := range m.Images {
		url := "data:" + http.DetectContentType(img) + ";base64," + base64.StdEncoding.EncodeToString(img)
		parts = append(parts, oaPart{Type: "image_url", ImageURL: &oaImageURL{URL: url}})
	}
	return parts
}

func oaTools(defs []tool.Definition) []oaTool {
	out := make([]oaTool, len(defs))
	for i, d := range defs {
		params := d.Parameters
		if params == nil {
			params = &tool.Schema{Type: "object", Properties: map[string]*tool.Schema{}}
		}
		out[i] = oaTool{Type: "function", Function: oaFunction{Name: d.Name, Description: d.Description, Parameters: params}}
	}
	return out
}

// oaErrorMessage digs the message out of an error body, whichever of the
// shapes servers use it has.
func oaErrorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var e oaError
		var s string
		switch {
		case json.Unmarshal(v.Error, &e) == nil && e.Message != "":
			return e.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		case v.Detail != nil:
			b, _ := json.Marshal(v.Detail)
			return string(b)
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	return s
}
