package llm_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

func newOpenAI(t *testing.T, m schema.Model, env map[string]string) *llm.OpenAI {
	t.Helper()
	p, err := llm.NewOpenAI(m, llm.Config{
		Getenv: func(k string) string { return env[k] },
		NewID:  func() string { return "gen-1" },
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOpenAIStreamsTextAndUsage(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Reply(llmtest.Words("Hello there world"), llmtest.Tokens(20, 5))
	p := newOpenAI(t, srv.ModelConfig(), nil)

	var rec recorder
	resp, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, user("hi")}}, rec.add)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"content:Hello ", "content:there ", "content:world", "done"}
	if got := rec.kinds(); !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	if resp.Message.Content != "Hello there world" || resp.DoneReason != llm.DoneStop {
		t.Errorf("response = %+v", resp)
	}
	if resp.Usage.PromptTokens != 20 || resp.Usage.CompletionTokens != 5 || rec.last().Usage != resp.Usage {
		t.Errorf("usage = %+v (done event %+v), want 20/5", resp.Usage, rec.last().Usage)
	}
	req := srv.LastRequest()
	if !req.Stream || !req.StreamOptions.IncludeUsage || req.Model != llmtest.DefaultModel {
		t.Errorf("request = %s; want stream with usage", req.Raw)
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Content != "hi" {
		t.Errorf("messages = %+v", req.Messages)
	}
	if _, ok := req.Body["tools"]; ok {
		t.Errorf("tools sent without any: %s", req.Raw)
	}
}

func TestOpenAIToolCallDeltas(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.SplitArguments(1) // every byte of the arguments in its own chunk
	srv.Reply(
		llmtest.Text("Let me look."),
		llmtest.ToolCall("read_file", map[string]any{"path": "docs/héllo ✓.md", "lines": []any{1, 2}}),
		llmtest.ToolCallNoID("list_dir", map[string]any{"path": "."}),
	)
	srv.Reply(llmtest.Text("Done."))
	p := newOpenAI(t, srv.ModelConfig(), nil)
	tools := []tool.Definition{readFileDef()}

	var rec recorder
	msgs := []llm.Message{user("read it")}
	resp, err := p.Chat(t.Context(), llm.Request{Messages: msgs, Tools: tools}, rec.add)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"content:Let me look.", "tool_call:read_file", "tool_call:list_dir", "done"}
	if got := rec.kinds(); !slices.Equal(got, want) {
		t.Fatalf("events = %q, want %q (each call once, whole)", got, want)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 2 || calls[0].ID != "call_00000001" || calls[1].ID != "gen-1" || resp.DoneReason != llm.DoneToolCalls {
		t.Fatalf("calls = %+v, done reason %q", calls, resp.DoneReason)
	}
	jsonEq(t, calls[0].Arguments, `{"path":"docs/héllo ✓.md","lines":[1,2]}`)
	jsonEq(t, calls[1].Arguments, `{"path":"."}`)
	checkOpenAITools(t, srv.LastRequest())

	msgs = append(msgs, resp.Message, llm.ToolResult(calls[0], "# hello"), llm.ToolResult(calls[1], "a.md"))
	if _, err := p.Chat(t.Context(), llm.Request{Messages: msgs, Tools: tools}, nil); err != nil {
		t.Fatal(err)
	}
	got := srv.LastRequest().Messages
	if len(got) != 4 {
		t.Fatalf("server got %d messages, want 4", len(got))
	}
	asst := got[1]
	if asst.Role != "assistant" || asst.Content != "Let me look." || len(asst.ToolCalls) != 2 {
		t.Fatalf("assistant message = %+v", asst)
	}
	if tc := asst.ToolCalls[0]; tc.ID != "call_00000001" || tc.Type != "function" || tc.Function.Name != "read_file" || !strings.Contains(tc.Function.Arguments, `"docs/héllo ✓.md"`) {
		t.Errorf("tool call sent back as %+v; want arguments as a JSON string", tc)
	}
	if m := got[2]; m.Role != "tool" || m.ToolCallID != "call_00000001" || m.Content != "# hello" {
		t.Errorf("tool message = %+v", m)
	}
	if m := got[3]; m.Role != "tool" || m.ToolCallID != "gen-1" {
		t.Errorf("tool message = %+v", m)
	}
}

func checkOpenAITools(t *testing.T, req llmtest.OpenAIRequest) {
	t.Helper()
	if names := llmtest.ToolNames(req.Tools); !slices.Equal(names, []string{"read_file"}) || req.Tools[0].Type != "function" {
		t.Fatalf("tools = %s", req.Raw)
	}
	params := req.Tools[0].Function.Parameters
	props, _ := params["properties"].(map[string]any)
	if path, _ := props["path"].(map[string]any); path["type"] != "string" || params["type"] != "object" {
		t.Errorf("parameters = %v", params)
	}
}

func TestOpenAIAssistantOnlyCallingToolsSendsNullContent(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Reply(llmtest.Text("ok"))
	call := llm.ToolCall{ID: "c1", Name: "list_dir", Arguments: []byte(`{}`)}
	msgs := []llm.Message{user("go"), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}, llm.ToolResult(call, "x")}
	if _, err := newOpenAI(t, srv.ModelConfig(), nil).Chat(t.Context(), llm.Request{Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	if c := srv.LastRequest().Messages[1].Content; c != nil {
		t.Errorf("content = %#v, want null beside tool calls", c)
	}
}

// Servers interleave the deltas of parallel calls, send keep-alive
// comments, and some leave out the index; the assembly must not care.
func TestOpenAIInterleavedDeltas(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Reply(llmtest.Raw(": keep-alive\n\n"+
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"second","arguments":""}}]}}]}`+"\n\n"+
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"first","arguments":"{\"x\""}}]}}]}`+"\n\n"+
		"event: message\n"+
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"y\":2}"}}]}}]}`+"\n\n"+
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}`+"\n\n"+
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\n"+
		"data: [DONE]\n\n"), llmtest.EndWithoutDone())
	resp, err := newOpenAI(t, srv.ModelConfig(), nil).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 2 || calls[0].ID != "a" || calls[0].Name != "first" || calls[1].ID != "b" || calls[1].Name != "second" {
		t.Fatalf("calls = %+v; want ordered by index", calls)
	}
	jsonEq(t, calls[0].Arguments, `{"x":1}`)
	jsonEq(t, calls[1].Arguments, `{"y":2}`)

	srv.Reply(llmtest.Raw(
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"p","function":{"name":"one","arguments":"{}"}}]}}]}`+"\n\n"+
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"q","function":{"name":"two","arguments":"{\"a\""}}]}}]}`+"\n\n"+
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":":true}"}}]}}]}`+"\n\n"+
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\n"), llmtest.EndWithoutDone())
	resp, err = newOpenAI(t, srv.ModelConfig(), nil).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls = resp.Message.ToolCalls
	if len(calls) != 2 || calls[0].Name != "one" || calls[1].Name != "two" {
		t.Fatalf("calls without index = %+v", calls)
	}
	jsonEq(t, calls[1].Arguments, `{"a":true}`)
}

func TestOpenAIMalformedArgumentsStayValidJSON(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Reply(llmtest.Raw(
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"path\": "}}]}}]}`+"\n\n"+
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\n"+"data: [DONE]\n\n"), llmtest.EndWithoutDone())
	resp, err := newOpenAI(t, srv.ModelConfig(), nil).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, resp.Message.ToolCalls[0].Arguments, `"{\"path\": "`)
}

func TestOpenAIThinking(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Reply(llmtest.Thinking("hmm, ", "six sevens"), llmtest.Text("42"))
	var rec recorder
	resp, err := newOpenAI(t, srv.ModelConfig(), nil).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("6*7")}}, rec.add)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"thinking:hmm, ", "thinking:six sevens", "content:42", "done"}
	if got := rec.kinds(); !slices.Equal(got, want) || resp.Message.Thinking != "hmm, six sevens" {
		t.Errorf("events = %q, thinking %q", got, resp.Message.Thinking)
	}
}

func TestOpenAIOptions(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Reply(llmtest.Text("a"))
	m := srv.ModelConfig()
	m.Options = map[string]any{"temperature": 0.2, "num_ctx": 8192, "num_predict": 256}
	_, err := newOpenAI(t, m, nil).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}, Options: map[string]any{"top_p": 0.9}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := srv.LastRequest().Body
	if body["temperature"] != 0.2 || body["top_p"] != 0.9 || body["max_tokens"] != 256.0 {
		t.Errorf("body = %v; want temperature, top_p and max_tokens from num_predict", body)
	}
	if _, ok := body["num_ctx"]; ok {
		t.Errorf("Ollama-only num_ctx sent: %v", body)
	}
}

// Request.ToolChoice (Gemini's toolConfig mode ANY) is sent as
// tool_choice, only with tools; Ollama's API has no such switch.
func TestOpenAIToolChoice(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	p := newOpenAI(t, srv.ModelConfig(), nil)
	for _, tools := range [][]tool.Definition{{readFileDef()}, nil} {
		srv.Reply(llmtest.Text("a"))
		if _, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}, Tools: tools, ToolChoice: "required"}, nil); err != nil {
			t.Fatal(err)
		}
		got, sent := srv.LastRequest().Body["tool_choice"]
		if want := len(tools) > 0; sent != want || (want && got != "required") {
			t.Errorf("with %d tools: tool_choice = %v (sent %v)", len(tools), got, sent)
		}
	}
	if !llm.ForcesToolCalls(p) || llm.ForcesToolCalls(newOllama(t, llmtest.NewOllama(t).ModelConfig())) {
		t.Error("ForcesToolCalls: want true for OpenAI-compatible servers only")
	}
}

func TestOpenAIAPIKey(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.RequireKey("s3cret-key")
	m := srv.ModelConfig()
	m.APIKeyEnv = "LOCAL_LLM_KEY"

	srv.Reply(llmtest.Text("ok"))
	if _, err := newOpenAI(t, m, map[string]string{"LOCAL_LLM_KEY": "s3cret-key"}).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}}, nil); err != nil {
		t.Fatal(err)
	}
	if h := srv.LastRequest().Authorization; h != "Bearer s3cret-key" {
		t.Errorf("Authorization = %q", h)
	}

	_, err := newOpenAI(t, m, map[string]string{"LOCAL_LLM_KEY": "wrong-key"}).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}}, nil)
	wantKind(t, err, llm.ErrAuth, "$LOCAL_LLM_KEY", srv.URL)
	if strings.Contains(err.Error(), "wrong-key") {
		t.Errorf("error shows the key: %v", err)
	}

	m.APIKeyEnv = ""
	_, err = newOpenAI(t, m, nil).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}}, nil)
	wantKind(t, err, llm.ErrAuth, "model.apiKeyEnv")

	m.APIKeyEnv = "UNSET_KEY"
	_, err = llm.NewOpenAI(m, llm.Config{Getenv: func(string) string { return "" }})
	wantKind(t, err, llm.ErrConfig, "UNSET_KEY", "not set")
}

func TestOpenAIModelMissing(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	m := srv.ModelConfig()
	m.Name = "llama-3-8b"
	_, err := newOpenAI(t, m, nil).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}}, nil)
	wantKind(t, err, llm.ErrModelMissing, "llama-3-8b", srv.URL, "/v1/models")
}

func TestOpenAINotRunning(t *testing.T) {
	addr := closedPort(t)
	p := newOpenAI(t, schema.Model{Provider: "openai", Name: "m", Endpoint: addr + "/v1"}, nil)
	_, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}}, nil)
	wantKind(t, err, llm.ErrUnreachable, addr, "model.endpoint")
}

func TestOpenAICancelMidStream(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Reply(llmtest.Text("one "), llmtest.Hang())
	var rec recorder
	ctx, onEvent := cancelOnFirst(t, llm.EventContent, &rec)
	resp, err := newOpenAI(t, srv.ModelConfig(), nil).Chat(ctx, llm.Request{Messages: []llm.Message{user("count")}}, onEvent)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	wantKind(t, err, llm.ErrCancelled)
	if resp.Message.Content != "one " {
		t.Errorf("partial content = %q", resp.Message.Content)
	}
	<-srv.Disconnected()
}

func TestOpenAICancelBeforeFirstChunk(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	reached := make(chan struct{})
	srv.Reply(llmtest.Signal(reached), llmtest.Hang())
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-reached; cancel() }()
	_, err := newOpenAI(t, srv.ModelConfig(), nil).Chat(ctx, llm.Request{Messages: []llm.Message{user("x")}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	<-srv.Disconnected()
}

func TestOpenAIFailures(t *testing.T) {
	tests := []struct {
		name  string
		steps []llmtest.Step
		kind  llm.ErrorKind
		says  string
	}{
		{"error event", []llmtest.Step{llmtest.Text("par"), llmtest.StreamError("model crashed")}, llm.ErrServer, "model crashed"},
		{"connection cut", []llmtest.Step{llmtest.Text("par"), llmtest.Drop()}, llm.ErrIncomplete, "reading the reply"},
		{"ends without finishing", []llmtest.Step{llmtest.Text("par"), llmtest.EndWithoutDone()}, llm.ErrIncomplete, "closed the stream"},
		{"overflow", []llmtest.Step{llmtest.HTTPError(400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.")}, llm.ErrContextOverflow, "compact"},
		{"llama.cpp overflow", []llmtest.Step{llmtest.HTTPError(400, "the request exceeds the available context size, try increasing it")}, llm.ErrContextOverflow, "larger context"},
		{"bad request", []llmtest.Step{llmtest.HTTPError(422, "messages: field required")}, llm.ErrRejected, "HTTP 422"},
		{"503", []llmtest.Step{llmtest.HTTPError(503, "loading model")}, llm.ErrServer, "HTTP 503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t)
			srv.Reply(tt.steps...)
			_, err := newOpenAI(t, srv.ModelConfig(), nil).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}}, nil)
			wantKind(t, err, tt.kind, tt.says, srv.URL)
		})
	}
}

func TestOpenAIModelInfo(t *testing.T) {
	m := schema.Model{Provider: "openai", Name: "m", Endpoint: "http://127.0.0.1:1/v1"}
	info, _ := newOpenAI(t, m, nil).ModelInfo(t.Context(), "")
	if info.ContextWindow != llm.DefaultContextWindow || info.ContextSource != llm.ContextFromDefault {
		t.Errorf("info = %+v", info)
	}
	m.ContextWindow = 32768
	info, _ = newOpenAI(t, m, nil).ModelInfo(t.Context(), "")
	if info.ContextWindow != 32768 || info.ContextSource != llm.ContextFromProfile {
		t.Errorf("info = %+v", info)
	}
}

func TestOpenAIDoneWithoutFinishReasonIsStop(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Reply(llmtest.Raw(`data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}`+"\n\ndata: [DONE]\n\n"), llmtest.EndWithoutDone())
	resp, err := newOpenAI(t, srv.ModelConfig(), nil).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}}, nil)
	if err != nil || resp.DoneReason != llm.DoneStop || resp.Message.Content != "hi" {
		t.Errorf("response %+v, error %v; want content hi, reason stop", resp, err)
	}
}
