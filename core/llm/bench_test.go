package llm_test

import (
	"fmt"
	"testing"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/llm/llmtest"
)

const benchTokens = 10_000

func benchText() llmtest.Step {
	toks := make([]string, benchTokens)
	for i := range toks {
		toks[i] = fmt.Sprintf("w%d ", i%97)
	}
	return llmtest.Text(toks...)
}

// BenchmarkOllamaStream10k streams a 10,000-token answer from the fake
// Ollama through the real api.Client and the provider, one NDJSON line
// per token over loopback HTTP. The fake's own encoding is included.
func BenchmarkOllamaStream10k(b *testing.B) {
	srv := llmtest.NewOllama(b)
	p, err := llm.NewOllama(srv.ModelConfig(), llm.Config{})
	if err != nil {
		b.Fatal(err)
	}
	benchStream(b, srv.Reply, p)
}

// BenchmarkOpenAIStream10k is the same through the OpenAI-compatible
// provider and its SSE parser.
func BenchmarkOpenAIStream10k(b *testing.B) {
	srv := llmtest.NewOpenAI(b)
	p, err := llm.NewOpenAI(srv.ModelConfig(), llm.Config{})
	if err != nil {
		b.Fatal(err)
	}
	benchStream(b, srv.Reply, p)
}

func benchStream(b *testing.B, reply func(...llmtest.Step), p llm.Provider) {
	text := benchText()
	req := llm.Request{Messages: []llm.Message{user("write")}}
	events := 0
	b.ReportAllocs()
	for b.Loop() {
		reply(text)
		events = 0
		resp, err := p.Chat(b.Context(), req, func(llm.Event) { events++ })
		if err != nil {
			b.Fatal(err)
		}
		if events != benchTokens+1 || resp.Usage.CompletionTokens != benchTokens {
			b.Fatalf("%d events, %d tokens", events, resp.Usage.CompletionTokens)
		}
	}
	b.ReportMetric(float64(benchTokens*b.N)/b.Elapsed().Seconds(), "tokens/s")
}
