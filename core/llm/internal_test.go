package llm

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

func TestPickContextWindow(t *testing.T) {
	tests := []struct {
		profile, numCtx, running, trained int
		want                              int
		source                            string
	}{
		{16000, 8192, 4096, 131072, 16000, ContextFromProfile},
		{0, 8192, 4096, 131072, 8192, ContextFromNumCtx},
		{0, 200000, 0, 131072, 131072, ContextFromNumCtx}, // Ollama caps num_ctx at the trained length
		{0, 200000, 0, 0, 200000, ContextFromNumCtx},
		{0, 0, 4096, 131072, 4096, ContextFromRunning},
		{0, 0, 0, 131072, 131072, ContextFromModel},
		{0, 0, 0, 0, DefaultContextWindow, ContextFromDefault},
	}
	for _, tt := range tests {
		got, src := pickContextWindow(tt.profile, tt.numCtx, tt.running, tt.trained)
		if got != tt.want || src != tt.source {
			t.Errorf("pickContextWindow(%d, %d, %d, %d) = %d, %s; want %d, %s", tt.profile, tt.numCtx, tt.running, tt.trained, got, src, tt.want, tt.source)
		}
	}
}

func TestContextLength(t *testing.T) {
	tests := []struct {
		info map[string]any
		want int
	}{
		{map[string]any{"general.architecture": "qwen3", "qwen3.context_length": 40960.0, "qwen3.embedding_length": 4096.0}, 40960},
		{map[string]any{"general.architecture": "gemma3", "llama.context_length": 8192.0}, 8192}, // any *.context_length
		{map[string]any{"general.architecture": "x"}, 0},
		{nil, 0},
	}
	for _, tt := range tests {
		if got := contextLength(tt.info); got != tt.want {
			t.Errorf("contextLength(%v) = %d, want %d", tt.info, got, tt.want)
		}
	}
}

func TestChatCompletionsURL(t *testing.T) {
	for base, want := range map[string]string{
		"http://127.0.0.1:8080":                     "http://127.0.0.1:8080/v1/chat/completions",
		"http://127.0.0.1:8080/v1":                  "http://127.0.0.1:8080/v1/chat/completions",
		"http://h/api/v1":                           "http://h/api/v1/chat/completions",
		"http://127.0.0.1:8080/v1/chat/completions": "http://127.0.0.1:8080/v1/chat/completions",
		"https://h/openai?api-version=2024-10-21":   "https://h/openai/v1/chat/completions?api-version=2024-10-21",
	} {
		if got := chatCompletionsURL(base); got != want {
			t.Errorf("chatCompletionsURL(%q) = %q, want %q", base, got, want)
		}
	}
}

func TestOllamaEndpoint(t *testing.T) {
	env := map[string]string{}
	cfg := Config{Getenv: func(k string) string { return env[k] }}
	tests := []struct {
		endpoint, host, want string
	}{
		{"", "", "http://127.0.0.1:11434"},
		{"", "10.0.0.5", "http://10.0.0.5:11434"},
		{"localhost:9000", "10.0.0.5", "http://localhost:9000"},
		{"http://box/", "", "http://box:11434"},
		{"https://ollama.example.test", "", "https://ollama.example.test"},
	}
	for _, tt := range tests {
		env["OLLAMA_HOST"] = tt.host
		p, err := NewOllama(schema.Model{Name: "m", Endpoint: tt.endpoint}, cfg)
		if err != nil {
			t.Fatalf("endpoint %q: %v", tt.endpoint, err)
		}
		if p.Endpoint() != tt.want {
			t.Errorf("endpoint %q, OLLAMA_HOST %q: %s, want %s", tt.endpoint, tt.host, p.Endpoint(), tt.want)
		}
	}
	_, err := NewOllama(schema.Model{Name: "m", Endpoint: "ftp://x"}, cfg)
	if !IsKind(err, ErrConfig) || !strings.Contains(err.Error(), "model.endpoint") {
		t.Errorf("bad scheme: %v", err)
	}
}

func TestParseKeepAlive(t *testing.T) {
	for in, want := range map[string]time.Duration{"10m": 10 * time.Minute, "300": 300 * time.Second, "-1": -1, "-5m": -5 * time.Minute, "0": 0} {
		got, err := parseKeepAlive(in)
		if err != nil || got != want {
			t.Errorf("parseKeepAlive(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	_, err := NewOllama(schema.Model{Name: "m", KeepAlive: "forever"}, Config{Getenv: func(string) string { return "" }})
	if !IsKind(err, ErrConfig) || !strings.Contains(err.Error(), "model.keepAlive") {
		t.Errorf("bad keepAlive: %v", err)
	}
}

func TestNewPicksProvider(t *testing.T) {
	cfg := Config{Getenv: func(string) string { return "" }}
	if p, err := New(schema.Model{Name: "m"}, cfg); err != nil {
		t.Fatal(err)
	} else if _, ok := p.(*Ollama); !ok {
		t.Errorf("empty provider gave %T, want *Ollama", p)
	}
	if p, err := New(schema.Model{Provider: "openai", Name: "m", Endpoint: "127.0.0.1:8080"}, cfg); err != nil {
		t.Fatal(err)
	} else if _, ok := p.(*OpenAI); !ok {
		t.Errorf("openai gave %T", p)
	}
	_, err := New(schema.Model{Provider: "anthropic"}, cfg)
	if !IsKind(err, ErrConfig) || !strings.Contains(err.Error(), `"ollama" or "openai"`) {
		t.Errorf("unknown provider: %v", err)
	}
	_, err = New(schema.Model{Provider: "openai", Name: "m"}, cfg)
	if !IsKind(err, ErrConfig) || !strings.Contains(err.Error(), "model.endpoint is empty") {
		t.Errorf("openai without endpoint: %v", err)
	}
}

func TestReadSSE(t *testing.T) {
	in := ": comment\r\n" +
		"event: message\r\n" +
		"data: {\"a\":1}\r\n\r\n" +
		"data: line one\n" +
		"data:line two\n\n" +
		"id: 7\nretry: 100\n\n" + // no data: no event
		"data: last without blank line"
	var got []string
	if err := readSSE(strings.NewReader(in), func(d []byte) bool { got = append(got, string(d)); return false }); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"a":1}`, "line one\nline two", "last without blank line"}
	if !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
}

func TestOllamaToolsKeepWhatOllamaUnderstands(t *testing.T) {
	def := tool.Definition{Name: "t", Parameters: &tool.Schema{Type: "object", Properties: map[string]*tool.Schema{
		"when": {AnyOf: []*tool.Schema{{Type: "string"}, {Type: "integer"}}},
		"opts": {Type: "object", Properties: map[string]*tool.Schema{"deep": {Type: "boolean", Description: "d"}}},
	}}}
	tools := ollamaTools([]tool.Definition{def})
	params := tools[0].Function.Parameters
	when, _ := params.Properties.Get("when")
	opts, _ := params.Properties.Get("opts")
	if len(when.AnyOf) != 2 || when.AnyOf[1].Type.String() != "integer" {
		t.Errorf("anyOf = %+v", when.AnyOf)
	}
	deep, ok := opts.Properties.Get("deep")
	if !ok || deep.Type.String() != "boolean" || deep.Description != "d" {
		t.Errorf("nested property = %+v", deep)
	}
	if got := ollamaTools([]tool.Definition{{Name: "bare"}})[0].Function.Parameters; got.Type != "object" || got.Properties.Len() != 0 {
		t.Errorf("nil schema = %+v, want an empty object", got)
	}
}
