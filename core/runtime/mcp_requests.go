package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
)

// MCP servers' requests to the client (issue 5): elicitations are asked
// through the confirmation bus and declined when nobody can answer;
// sampling requests reach the session's model only after the user allowed
// them on the bus.

// mcpRequests sets the elicitation and sampling handlers of o.
func (rt *Runtime) mcpRequests(o *mcp.Options) {
	o.Elicit = rt.elicit
	o.Sample = rt.sample
}

// elicitParams is what the confirmation shows of an elicitation.
type elicitParams struct {
	Server  string          `json:"server"`
	Message string          `json:"message"`
	URL     string          `json:"url,omitempty"`
	Schema  json.RawMessage `json:"schema,omitempty"`
}

// elicit asks the user for what the server wants. Allow accepts with the
// answer's Feedback as content, deny declines; with no one to answer the
// bus denies at once, so a headless session declines.
func (rt *Runtime) elicit(ctx context.Context, e mcp.Elicitation) (mcp.ElicitationReply, error) {
	params, _ := json.Marshal(elicitParams{Server: e.Server, Message: e.Message, URL: e.URL, Schema: e.Schema})
	desc := e.Message
	if e.URL != "" {
		desc = strings.TrimSpace(desc + "\nopen: " + e.URL)
	}
	resp, err := rt.Bus.Ask(ctx, policy.Details{Tool: bus.ElicitTool, Description: desc, Kind: tool.KindOther,
		Risk: tool.RiskLow, Params: params, Reason: fmt.Sprintf("MCP server %q asks for input", e.Server)})
	if err != nil {
		return mcp.ElicitationReply{}, err
	}
	if !resp.Answer.Allowed() && resp.Headless {
		// Nobody could be asked: --elicit decides (decline, or a form's
		// defaults), and the notice says which.
		r, why := mcp.HeadlessReply(rt.opts.ElicitHeadless, e)
		if rt.opts.OnNotice != nil {
			rt.opts.OnNotice(why)
		}
		return r, nil
	}
	if !resp.Answer.Allowed() {
		return mcp.ElicitationReply{Action: mcp.ElicitDecline}, nil
	}
	if e.Mode == "url" {
		return mcp.ElicitationReply{Action: mcp.ElicitAccept}, nil
	}
	content, err := ElicitContent(e.Schema, resp.Feedback)
	if err != nil {
		return mcp.ElicitationReply{}, fmt.Errorf("answer to MCP server %q: %w", e.Server, err)
	}
	return mcp.ElicitationReply{Action: mcp.ElicitAccept, Content: content}, nil
}

// elicitSchema is the part of a requested schema the answer needs.
type elicitSchema struct {
	Properties map[string]struct {
		Type string `json:"type"`
	} `json:"properties"`
}

// ElicitContent turns the user's answer into the elicitation's content: a
// JSON object as it is, or, when the schema asks for exactly one field,
// the plain text as that field's value, converted to its type.
func ElicitContent(schema json.RawMessage, answer string) (map[string]any, error) {
	answer = strings.TrimSpace(answer)
	var s elicitSchema
	if len(schema) > 0 {
		_ = json.Unmarshal(schema, &s)
	}
	if strings.HasPrefix(answer, "{") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(answer), &obj); err != nil {
			return nil, fmt.Errorf("the answer is not a JSON object: %w", err)
		}
		return obj, nil
	}
	if answer == "" {
		return map[string]any{}, nil
	}
	if len(s.Properties) != 1 {
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("the server asks for several fields (%s); answer with a JSON object", strings.Join(names, ", "))
	}
	for name, p := range s.Properties {
		v, err := coerce(p.Type, answer)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", name, err)
		}
		return map[string]any{name: v}, nil
	}
	return nil, errors.New("unreachable")
}

// coerce converts text to a JSON schema type.
func coerce(typ, text string) (any, error) {
	switch typ {
	case "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", text)
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return f, nil
	case "boolean":
		switch strings.ToLower(text) {
		case "true", "yes", "y", "1":
			return true, nil
		case "false", "no", "n", "0":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not a boolean (yes or no)", text)
	case "array":
		var out []string
		for _, p := range strings.Split(text, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	}
	return text, nil
}

// sampleParams is what the confirmation shows of a sampling request.
type sampleParams struct {
	Server       string                `json:"server"`
	SystemPrompt string                `json:"systemPrompt,omitempty"`
	Messages     []mcp.SamplingMessage `json:"messages"`
	MaxTokens    int                   `json:"maxTokens"`
}

// errSamplingDenied is why a refused sampling request failed.
var errSamplingDenied = errors.New("the user did not allow it")

// sample asks the user whether the server may use the session's model and
// only then sends the messages to it, in one chat the user does not see
// streamed.
func (rt *Runtime) sample(ctx context.Context, r mcp.SamplingRequest) (mcp.SamplingReply, error) {
	params, _ := json.Marshal(sampleParams{Server: r.Server, SystemPrompt: r.SystemPrompt, Messages: r.Messages, MaxTokens: r.MaxTokens})
	resp, err := rt.Bus.Ask(ctx, policy.Details{Tool: bus.SampleTool, Kind: tool.KindOther, Risk: tool.RiskMedium,
		Description: fmt.Sprintf("MCP server %q wants a completion from the session's model (at most %d tokens)", r.Server, r.MaxTokens),
		Params:      params, Reason: fmt.Sprintf("MCP server %q asks to use the model", r.Server)})
	if err != nil {
		return mcp.SamplingReply{}, err
	}
	if !resp.Answer.Allowed() {
		if resp.Headless {
			return mcp.SamplingReply{}, errors.New("no one can allow it in this session")
		}
		return mcp.SamplingReply{}, errSamplingDenied
	}
	model, prov := rt.Model()
	if prov == nil {
		return mcp.SamplingReply{}, errors.New("the session has no model")
	}
	req := llm.Request{Options: map[string]any{}}
	if r.SystemPrompt != "" {
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleSystem, Content: r.SystemPrompt})
	}
	for _, m := range r.Messages {
		role := llm.RoleUser
		if m.Role == string(llm.RoleAssistant) {
			role = llm.RoleAssistant
		}
		req.Messages = append(req.Messages, llm.Message{Role: role, Content: m.Text})
	}
	if r.MaxTokens > 0 {
		req.Options["num_predict"] = r.MaxTokens
	}
	if r.Temperature > 0 {
		req.Options["temperature"] = r.Temperature
	}
	out, err := prov.Chat(ctx, req, nil)
	if err != nil {
		return mcp.SamplingReply{}, fmt.Errorf("the model failed: %w", err)
	}
	stop := "endTurn"
	if out.Truncated() {
		stop = "maxTokens"
	}
	return mcp.SamplingReply{Model: model.Name, Text: out.Message.Content, StopReason: stop}, nil
}
