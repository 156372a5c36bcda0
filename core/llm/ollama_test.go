package llm_test

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"testing"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

func newOllama(t *testing.T, m schema.Model) *llm.Ollama {
	t.Helper()
	n := 0
	p, err := llm.NewOllama(m, llm.Config{
		Getenv: func(string) string { return "" },
		NewID:  func() string { n++; return "gen-" + string(rune('0'+n)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOllamaStreamsText(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Words("Hello there world"), llmtest.Tokens(12, 3))
	p := newOllama(t, srv.ModelConfig())

	var rec recorder
	resp, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("hi")}}, rec.add)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"content:Hello ", "content:there ", "content:world", "done"}
	if got := rec.kinds(); !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	if resp.Message.Role != llm.RoleAssistant || resp.Message.Content != "Hello there world" {
		t.Errorf("message = %+v", resp.Message)
	}
	if resp.DoneReason != llm.DoneStop || resp.Usage.PromptTokens != 12 || resp.Usage.CompletionTokens != 3 {
		t.Errorf("done reason %q, usage %+v; want stop, 12 prompt, 3 completion", resp.DoneReason, resp.Usage)
	}
	if resp.Usage.EvalDuration == 0 || resp.Usage.TotalDuration == 0 || resp.Usage.LoadDuration == 0 {
		t.Errorf("durations not read: %+v", resp.Usage)
	}
	if done := rec.last(); done.Usage != resp.Usage || done.DoneReason != resp.DoneReason {
		t.Errorf("done event %+v does not match response %+v", done, resp)
	}
	req := srv.LastRequest()
	if req.Model != llmtest.DefaultModel || req.Stream == nil || !*req.Stream || len(req.Messages) != 1 || req.Messages[0].Content != "hi" {
		t.Errorf("server got %s", req.Raw)
	}
}

func TestOllamaLengthIsTruncated(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Text("cut"), llmtest.Done("length"))
	resp, err := newOllama(t, srv.ModelConfig()).Chat(t.Context(), llm.Request{Messages: []llm.Message{user("go on")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Truncated() {
		t.Errorf("done reason %q: want Truncated", resp.DoneReason)
	}
}

func TestOllamaThinking(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Thinking("Let me ", "see."), llmtest.Text("42"))
	p := newOllama(t, srv.ModelConfig())

	var rec recorder
	resp, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("6*7?")}, Think: new(true)}, rec.add)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"thinking:Let me ", "thinking:see.", "content:42", "done"}
	if got := rec.kinds(); !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	if resp.Message.Thinking != "Let me see." || resp.Message.Content != "42" {
		t.Errorf("message = %+v", resp.Message)
	}
	if think := srv.LastRequest().Think; think != true {
		t.Errorf("think sent as %v, want true", think)
	}

	srv.Reply(llmtest.Text("ok"))
	if _, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}}, nil); err != nil {
		t.Fatal(err)
	}
	if think := srv.LastRequest().Think; think != nil {
		t.Errorf("think sent as %v without Request.Think, want it left out", think)
	}

	srv.Reply(llmtest.Text("ok"))
	if _, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}, Think: new(false), ThinkLevel: "high"}, nil); err != nil {
		t.Fatal(err)
	}
	if think := srv.LastRequest().Think; think != "high" {
		t.Errorf("think sent as %v, want the level \"high\"", think)
	}
}

func TestOllamaToolCallRoundTrip(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.Reply(
		llmtest.Text("Reading it."),
		llmtest.ToolCall("read_file", map[string]any{"path": "a.go", "lines": []any{1, 2}}),
		llmtest.ToolCallNoID("list_dir", nil),
	)
	srv.Reply(llmtest.Text("It is package a."))
	p := newOllama(t, srv.ModelConfig())
	tools := []tool.Definition{readFileDef()}

	var rec recorder
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "be brief"}, user("what is a.go?")}
	resp, err := p.Chat(t.Context(), llm.Request{Messages: msgs, Tools: tools}, rec.add)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"content:Reading it.", "tool_call:read_file", "tool_call:list_dir", "done"}
	if got := rec.kinds(); !slices.Equal(got, want) {
		t.Fatalf("events = %q, want %q", got, want)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 2 || calls[0].ID != "call_00000001" || calls[1].ID != "gen-1" {
		t.Fatalf("tool calls = %+v; want the server's id, then a generated one", calls)
	}
	if rec.events[1].ToolCall.ID != calls[0].ID || rec.events[2].ToolCall.ID != calls[1].ID {
		t.Errorf("event ids differ from response ids")
	}
	jsonEq(t, calls[0].Arguments, `{"path":"a.go","lines":[1,2]}`)
	jsonEq(t, calls[1].Arguments, `{}`)
	checkOllamaTools(t, srv.LastRequest())

	msgs = append(msgs, resp.Message, llm.ToolResult(calls[0], "package a"), llm.ToolResult(calls[1], "a.go"))
	if _, err := p.Chat(t.Context(), llm.Request{Messages: msgs, Tools: tools}, nil); err != nil {
		t.Fatal(err)
	}
	got := srv.LastRequest().Messages
	if len(got) != 5 {
		t.Fatalf("server got %d messages, want 5", len(got))
	}
	asst := got[2]
	if asst.Role != "assistant" || asst.Content != "Reading it." || len(asst.ToolCalls) != 2 {
		t.Fatalf("assistant message = %+v", asst)
	}
	if tc := asst.ToolCalls[0]; tc.ID != "call_00000001" || tc.Function.Name != "read_file" || tc.Function.Arguments["path"] != "a.go" {
		t.Errorf("assistant tool call sent back as %+v; want arguments as an object", tc)
	}
	for i, want := range []struct{ id, name, content string }{{"call_00000001", "read_file", "package a"}, {"gen-1", "list_dir", "a.go"}} {
		m := got[3+i]
		if m.Role != "tool" || m.ToolCallID != want.id || m.ToolName != want.name || m.Content != want.content {
			t.Errorf("tool message %d = %+v, want role tool, id %s, name %s", i, m, want.id, want.name)
		}
	}
}

func checkOllamaTools(t *testing.T, req llmtest.ChatRequest) {
	t.Helper()
	if names := llmtest.ToolNames(req.Tools); !slices.Equal(names, []string{"read_file"}) || req.Tools[0].Type != "function" {
		t.Fatalf("tools sent = %s", req.Raw)
	}
	params := req.Tools[0].Function.Parameters
	props, _ := params["properties"].(map[string]any)
	path, _ := props["path"].(map[string]any)
	lines, _ := props["lines"].(map[string]any)
	mode, _ := props["mode"].(map[string]any)
	if params["type"] != "object" || path["type"] != "string" || path["description"] != "Path to read." {
		t.Errorf("parameters = %v", params)
	}
	if items, _ := lines["items"].(map[string]any); items["type"] != "integer" {
		t.Errorf("array items lost: %v", lines)
	}
	if enum, _ := mode["enum"].([]any); len(enum) != 2 {
		t.Errorf("enum lost: %v", mode)
	}
	if req, _ := params["required"].([]any); len(req) != 1 || req[0] != "path" {
		t.Errorf("required = %v", params["required"])
	}
}

func TestOllamaOptionsAndKeepAlive(t *testing.T) {
	srv := llmtest.NewOllama(t)
	m := srv.ModelConfig()
	m.Options = map[string]any{"temperature": 0.2, "num_ctx": 8192}
	m.KeepAlive = "10m"
	p := newOllama(t, m)

	srv.Reply(llmtest.Text("a"))
	if _, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}, Options: map[string]any{"temperature": 0.7, "seed": 42}}, nil); err != nil {
		t.Fatal(err)
	}
	req := srv.LastRequest()
	if req.Options["temperature"] != 0.7 || req.Options["num_ctx"] != 8192.0 || req.Options["seed"] != 42.0 {
		t.Errorf("options sent = %v; want the request's over the profile's", req.Options)
	}
	if req.KeepAlive != "10m0s" {
		t.Errorf("keep_alive sent = %v, want 10m0s", req.KeepAlive)
	}
	if m.Options["temperature"] != 0.2 {
		t.Errorf("profile options changed: %v", m.Options)
	}
	if got := llm.ModelOptions(p); got["temperature"] != 0.2 || got["num_ctx"] != 8192 {
		t.Errorf("ModelOptions = %v, want the profile's", got)
	}

	// A nil option (a hook that unset it) leaves the profile's out.
	srv.Reply(llmtest.Text("c"))
	if _, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}, Options: map[string]any{"temperature": nil}}, nil); err != nil {
		t.Fatal(err)
	}
	if req := srv.LastRequest(); req.Options["num_ctx"] != 8192.0 {
		t.Errorf("options sent = %v; want num_ctx kept", req.Options)
	} else if _, ok := req.Options["temperature"]; ok {
		t.Errorf("options sent = %v; want temperature removed", req.Options)
	}

	srv.Reply(llmtest.Text("b"))
	if _, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("x")}, KeepAlive: "-1"}, nil); err != nil {
		t.Fatal(err)
	}
	if ka := srv.LastRequest().KeepAlive; ka != -1.0 {
		t.Errorf("keep_alive sent = %v, want -1 (for ever)", ka)
	}
}

func TestOllamaSendsImages(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Text("a cat"))
	img := []byte("\x89PNG\r\n\x1a\nfake")
	msg := llm.Message{Role: llm.RoleUser, Content: "what is this?", Images: [][]byte{img}}
	if _, err := newOllama(t, srv.ModelConfig()).Chat(t.Context(), llm.Request{Messages: []llm.Message{msg}}, nil); err != nil {
		t.Fatal(err)
	}
	got := srv.LastRequest().Messages[0].Images
	if len(got) != 1 || got[0] != base64.StdEncoding.EncodeToString(img) {
		t.Errorf("images sent = %v", got)
	}
}

func TestOllamaCancelMidStream(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.Reply(llmtest.Text("one "), llmtest.Hang())
	p := newOllama(t, srv.ModelConfig())

	var rec recorder
	ctx, onEvent := cancelOnFirst(t, llm.EventContent, &rec)
	resp, err := p.Chat(ctx, llm.Request{Messages: []llm.Message{user("count")}}, onEvent)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	wantKind(t, err, llm.ErrCancelled, srv.URL)
	if resp.Message.Content != "one " {
		t.Errorf("partial content = %q, want what arrived before the cancel", resp.Message.Content)
	}
	if got := rec.kinds(); !slices.Equal(got, []string{"content:one "}) {
		t.Errorf("events = %q; no done event after a cancel", got)
	}
	<-srv.Disconnected() // the connection really closed: the server saw the client go
}

// Cancelling before the first byte (the model still loading) must end the
// request too.
func TestOllamaCancelBeforeFirstChunk(t *testing.T) {
	srv := llmtest.NewOllama(t)
	reached := make(chan struct{})
	srv.Reply(llmtest.Signal(reached), llmtest.Hang())
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-reached; cancel() }()
	_, err := newOllama(t, srv.ModelConfig()).Chat(ctx, llm.Request{Messages: []llm.Message{user("x")}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	<-srv.Disconnected()
}

func TestOllamaNotRunning(t *testing.T) {
	addr := closedPort(t)
	p := newOllama(t, schema.Model{Provider: "ollama", Name: "qwen3", Endpoint: addr})
	_, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("hi")}}, nil)
	wantKind(t, err, llm.ErrUnreachable, "Ollama is not running at "+addr, "ollama serve", "model.endpoint")

	_, err = p.ModelInfo(t.Context(), "")
	wantKind(t, err, llm.ErrUnreachable, addr)
}

func TestOllamaModelMissing(t *testing.T) {
	srv := llmtest.NewOllama(t)
	m := srv.ModelConfig()
	m.Name = "qwen3:8b"
	p := newOllama(t, m)

	_, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("hi")}}, nil)
	wantKind(t, err, llm.ErrModelMissing, "model qwen3:8b is not installed: run `ollm model pull qwen3:8b` (or `ollama pull qwen3:8b`")

	_, err = p.ModelInfo(t.Context(), "")
	wantKind(t, err, llm.ErrModelMissing, "ollama pull qwen3:8b")
}

func TestOllamaServerFailures(t *testing.T) {
	tests := []struct {
		name  string
		steps []llmtest.Step
		kind  llm.ErrorKind
		says  string
		keeps string // partial content kept in the response
	}{
		{"error inside the stream", []llmtest.Step{llmtest.Text("par"), llmtest.StreamError("CUDA error: out of memory")}, llm.ErrServer, "out of memory", "par"},
		{"connection cut", []llmtest.Step{llmtest.Text("par"), llmtest.Drop()}, llm.ErrIncomplete, "closed the stream", "par"},
		{"body ends without done", []llmtest.Step{llmtest.Text("par"), llmtest.EndWithoutDone()}, llm.ErrIncomplete, "before test-model finished", "par"},
		{"500", []llmtest.Step{llmtest.HTTPError(500, "llama runner process has terminated")}, llm.ErrServer, "runner process", ""},
		{"400", []llmtest.Step{llmtest.HTTPError(400, "think value \"high\" is not supported for this model")}, llm.ErrRejected, "HTTP 400", ""},
		{"overflow", []llmtest.Step{llmtest.HTTPError(400, "input length exceeds the context length")}, llm.ErrContextOverflow, "compact", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewOllama(t)
			srv.Reply(tt.steps...)
			p := newOllama(t, srv.ModelConfig())
			resp, err := p.Chat(t.Context(), llm.Request{Messages: []llm.Message{user("hi")}}, nil)
			wantKind(t, err, tt.kind, tt.says, srv.URL)
			if resp.Message.Content != tt.keeps {
				t.Errorf("content = %q, want %q", resp.Message.Content, tt.keeps)
			}
		})
	}
}

func TestOllamaModelInfo(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.AddModel(llmtest.Model{Name: "qwen3:8b", Family: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools", "thinking"}})
	m := srv.ModelConfig()
	m.Name = "qwen3:8b"

	info, err := newOllama(t, m).ModelInfo(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "qwen3:8b" || info.TrainedContext != 40960 || info.ContextWindow != 40960 || info.ContextSource != llm.ContextFromModel {
		t.Errorf("info = %+v; want the trained context from model_info", info)
	}
	if info.Family != "qwen3" || info.Quantization != "Q4_K_M" || !slices.Contains(info.Capabilities, "thinking") {
		t.Errorf("details = %+v", info)
	}

	srv.Load("qwen3:8b", 8192)
	info, _ = newOllama(t, m).ModelInfo(t.Context(), "")
	if info.ContextWindow != 8192 || info.ContextSource != llm.ContextFromRunning {
		t.Errorf("loaded model: window %d from %s, want 8192 from running", info.ContextWindow, info.ContextSource)
	}

	m.Options = map[string]any{"num_ctx": 131072}
	info, _ = newOllama(t, m).ModelInfo(t.Context(), "")
	if info.ContextWindow != 40960 || info.ContextSource != llm.ContextFromNumCtx {
		t.Errorf("num_ctx above the trained length: window %d from %s, want 40960 from num_ctx", info.ContextWindow, info.ContextSource)
	}

	m.ContextWindow = 16000
	info, _ = newOllama(t, m).ModelInfo(t.Context(), "")
	if info.ContextWindow != 16000 || info.ContextSource != llm.ContextFromProfile {
		t.Errorf("profile override: window %d from %s", info.ContextWindow, info.ContextSource)
	}
}

func TestOllamaVersion(t *testing.T) {
	srv := llmtest.NewOllama(t)
	v, err := newOllama(t, srv.ModelConfig()).Version(t.Context())
	if err != nil || v != llmtest.Version {
		t.Errorf("version = %q, %v", v, err)
	}
}
