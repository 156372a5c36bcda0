package llm

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/ollm/ollm/core/tool"
)

// ollamaStream folds /api/chat chunks into events and one Response.
type ollamaStream struct {
	onEvent  func(Event)
	newID    func() string
	content  strings.Builder
	thinking strings.Builder
	calls    []ToolCall
	done     bool
	reason   string
	usage    Usage
}

func newOllamaStream(onEvent func(Event), newID func() string) *ollamaStream {
	return &ollamaStream{onEvent: onEvent, newID: newID}
}

func (s *ollamaStream) emit(e Event) {
	if s.onEvent != nil {
		s.onEvent(e)
	}
}

func (s *ollamaStream) add(r api.ChatResponse) {
	if t := r.Message.Thinking; t != "" {
		s.thinking.WriteString(t)
		s.emit(Event{Kind: EventThinking, Text: t})
	}
	if c := r.Message.Content; c != "" {
		s.content.WriteString(c)
		s.emit(Event{Kind: EventContent, Text: c})
	}
	for _, tc := range r.Message.ToolCalls {
		call := s.toolCall(tc)
		s.calls = append(s.calls, call)
		s.emit(Event{Kind: EventToolCall, ToolCall: call})
	}
	if r.Done {
		s.done = true
		s.reason = r.DoneReason
		s.usage = ollamaUsage(r.Metrics)
	}
}

// toolCall converts one call, naming it when the server did not.
func (s *ollamaStream) toolCall(tc api.ToolCall) ToolCall {
	args, err := json.Marshal(tc.Function.Arguments)
	if err != nil {
		args = jsonOrString(tc.Function.Arguments.String())
	}
	id := tc.ID
	if id == "" {
		id = s.newID()
	}
	return ToolCall{ID: id, Name: tc.Function.Name, Arguments: args}
}

func (s *ollamaStream) response() Response {
	return Response{
		Message: Message{
			Role:      RoleAssistant,
			Content:   s.content.String(),
			Thinking:  s.thinking.String(),
			ToolCalls: s.calls,
		},
		DoneReason: s.reason,
		Usage:      s.usage,
	}
}

func ollamaUsage(m api.Metrics) Usage {
	return Usage{
		PromptTokens:       m.PromptEvalCount,
		CompletionTokens:   m.EvalCount,
		TotalDuration:      m.TotalDuration,
		LoadDuration:       m.LoadDuration,
		PromptEvalDuration: m.PromptEvalDuration,
		EvalDuration:       m.EvalDuration,
	}
}

// ollamaMessages converts the conversation to Ollama's message type.
func ollamaMessages(msgs []Message) ([]api.Message, error) {
	out := make([]api.Message, len(msgs))
	for i, m := range msgs {
		calls, err := ollamaToolCalls(m.ToolCalls)
		if err != nil {
			return nil, fmt.Errorf("message %d (%s): %w", i, m.Role, err)
		}
		out[i] = api.Message{
			Role:       string(m.Role),
			Content:    m.Content,
			Thinking:   m.Thinking,
			ToolCalls:  calls,
			ToolName:   m.ToolName,
			ToolCallID: m.ToolCallID,
		}
		for _, img := range m.Images {
			out[i].Images = append(out[i].Images, api.ImageData(img))
		}
	}
	return out, nil
}

// ollamaToolCalls sends calls back as Ollama wants them: arguments as a
// JSON object. Arguments that are not an object (a model's malformed call,
// kept as a JSON string) go back as an empty object.
func ollamaToolCalls(calls []ToolCall) ([]api.ToolCall, error) {
	var out []api.ToolCall
	for i, c := range calls {
		args := api.NewToolCallFunctionArguments()
		if len(c.Arguments) > 0 && c.Arguments[0] == '{' {
			if err := json.Unmarshal(c.Arguments, &args); err != nil {
				return nil, fmt.Errorf("tool call %s (%s): arguments: %w", c.ID, c.Name, err)
			}
		}
		out = append(out, api.ToolCall{ID: c.ID, Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: args}})
	}
	return out, nil
}

// ollamaTools converts tool definitions to Ollama's function schema. That
// type has no room for some JSON Schema keywords (required and
// additionalProperties below the top level, format, pattern, bounds,
// defaults); Ollama's server decodes into the same type, so it would drop
// them anyway. Array item schemas travel whole.
func ollamaTools(defs []tool.Definition) api.Tools {
	if len(defs) == 0 {
		return nil
	}
	out := make(api.Tools, len(defs))
	for i, d := range defs {
		out[i] = api.Tool{Type: "function", Function: api.ToolFunction{
			Name:        d.Name,
			Description: d.Description,
			Parameters:  ollamaParameters(d.Parameters),
		}}
	}
	return out
}

func ollamaParameters(s *tool.Schema) api.ToolFunctionParameters {
	p := api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}
	if s == nil {
		return p
	}
	p.Required = s.Required
	for _, name := range sortedKeys(s.Properties) {
		p.Properties.Set(name, ollamaProperty(s.Properties[name]))
	}
	return p
}

func ollamaProperty(s *tool.Schema) api.ToolProperty {
	if s == nil {
		return api.ToolProperty{}
	}
	p := api.ToolProperty{Description: s.Description, Enum: s.Enum}
	if s.Type != "" {
		p.Type = api.PropertyType{s.Type}
	}
	if s.Items != nil {
		p.Items = s.Items
	}
	for _, a := range s.AnyOf {
		p.AnyOf = append(p.AnyOf, ollamaProperty(a))
	}
	if len(s.Properties) > 0 {
		p.Properties = api.NewToolPropertiesMap()
		for _, name := range sortedKeys(s.Properties) {
			p.Properties.Set(name, ollamaProperty(s.Properties[name]))
		}
	}
	return p
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
