package llm

import (
	"fmt"
	"testing"

	"github.com/ollama/ollama/api"
)

// BenchmarkFold10k measures the providers' own share of a 10,000-token
// stream: folding decoded chunks (Ollama) or raw SSE data (OpenAI) into
// events and a Response, without HTTP or the server.
func BenchmarkFold10k(b *testing.B) {
	chunks := make([]api.ChatResponse, benchTokens)
	datas := make([][]byte, benchTokens)
	for i := range chunks {
		tok := fmt.Sprintf("w%d ", i%97)
		chunks[i] = api.ChatResponse{Message: api.Message{Role: "assistant", Content: tok}}
		datas[i] = fmt.Appendf(nil, `{"choices":[{"index":0,"delta":{"content":%q},"finish_reason":null}]}`, tok)
	}
	b.Run("ollama", func(b *testing.B) {
		for b.Loop() {
			st := newOllamaStream(func(Event) {}, randomCallID)
			for _, c := range chunks {
				st.add(c)
			}
			_ = st.response()
		}
	})
	b.Run("openai", func(b *testing.B) {
		for b.Loop() {
			st := newOAStream(func(Event) {}, randomCallID)
			for _, d := range datas {
				st.data(d)
			}
			_ = st.response()
		}
	})
}

const benchTokens = 10_000
