package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/schema"
)

func TestOllamaInstalledAndPull(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.AddModel(llmtest.Model{Name: "qwen3:8b", ParameterSize: "8.2B", Quantization: "Q4_K_M"})
	srv.Pullable(llmtest.Model{Name: "tiny:1b"}, 1_300_000_000, false)
	p, err := llm.NewOllama(srv.ModelConfig(), llm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	list, err := p.Installed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "qwen3:8b" || list[0].ParameterSize != "8.2B" || list[0].Quantization != "Q4_K_M" || list[0].Size == 0 {
		t.Fatalf("Installed = %+v", list)
	}
	if llm.HasModel(list, "tiny:1b") || !llm.HasModel(list, "test-model") {
		t.Fatalf("HasModel wrong on %+v", list)
	}
	var got []llm.PullProgress
	if err := p.Pull(ctx, "tiny:1b", func(pp llm.PullProgress) { got = append(got, pp) }); err != nil {
		t.Fatal(err)
	}
	partial := false
	for _, g := range got {
		if g.Total == 1_300_000_000 && g.Completed > 0 && g.Completed < g.Total {
			partial = true
		}
	}
	if !partial || got[len(got)-1].Status != "success" {
		t.Fatalf("progress = %+v", got)
	}
	list, _ = p.Installed(ctx)
	if !llm.HasModel(list, "tiny:1b") {
		t.Fatalf("tiny:1b not installed after the pull: %+v", list)
	}

	err = p.Pull(ctx, "no-such", nil)
	if err == nil || !strings.Contains(err.Error(), "pulling no-such into Ollama at "+srv.URL+" failed: pull model manifest: file does not exist") {
		t.Fatalf("unknown model: %v", err)
	}
}

func TestOllamaPullUnreachable(t *testing.T) {
	p, err := llm.NewOllama(schema.Model{Name: "m", Endpoint: "http://127.0.0.1:9"}, llm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	err = p.Pull(context.Background(), "m", nil)
	if !llm.IsKind(err, llm.ErrUnreachable) {
		t.Fatalf("err = %v, want unreachable", err)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{4920753328: "4.9 GB", 522_000_000: "522 MB", 1482: "1 KB", 96: "96 B"} {
		if got := llm.FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
