package llm_test

import (
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/llm/llmtest"
)

// Both providers list their server's models, sorted (an editor's model
// selector); an unreachable server is an error naming where.
func TestListModels(t *testing.T) {
	o := llmtest.NewOllama(t)
	o.AddModel(llmtest.Model{Name: "qwen3:8b"})
	p, err := llm.New(o.ModelConfig(), llm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.(llm.ModelLister).ListModels(t.Context())
	if err != nil || strings.Join(got, " ") != "qwen3:8b test-model:latest" {
		t.Errorf("ollama: %q, %v", got, err)
	}

	s := llmtest.NewOpenAI(t)
	s.AddModel(llmtest.Model{Name: "a-model"})
	s.RequireKey("s3cret-key")
	m := s.ModelConfig()
	m.APIKeyEnv = "KEY"
	p, err = llm.New(m, llm.Config{Getenv: func(string) string { return "s3cret-key" }})
	if err != nil {
		t.Fatal(err)
	}
	got, err = p.(llm.ModelLister).ListModels(t.Context())
	if err != nil || strings.Join(got, " ") != "a-model:latest test-model:latest" {
		t.Errorf("openai: %q, %v", got, err)
	}

	dead := o.ModelConfig()
	dead.Endpoint = "http://127.0.0.1:1"
	p, _ = llm.New(dead, llm.Config{})
	if _, err := p.(llm.ModelLister).ListModels(t.Context()); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("unreachable: %v", err)
	}
}
