package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/schema"
)

func modelOpts(srv *llmtest.Ollama, name string) (*ModelOptions, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &ModelOptions{IO: &IOStreams{Out: out, ErrOut: errOut}, Context: context.Background(),
		Model: func() (schema.Model, error) {
			return schema.Model{Provider: "ollama", Name: name, Endpoint: srv.URL}, nil
		},
		Provider: func(m schema.Model) (llm.Provider, error) { return llm.New(m, llm.Config{}) }}, out, errOut
}

// `ollm model list` shows the installed models with size, parameters and
// quantization, marks the profile's, and says how to pull it when it is
// missing; --json is the list.
func TestModelList(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.AddModel(llmtest.Model{Name: "qwen3:8b", ParameterSize: "8.2B", Quantization: "Q4_K_M"})
	opts, out, _ := modelOpts(srv, "qwen3:8b")
	if err := modelListRun(opts); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"NAME", "SIZE", "PARAMETERS", "* qwen3:8b", "4.9 GB", "8.2B", "Q4_K_M", "  test-model:latest"} {
		if !strings.Contains(out.String(), w) {
			t.Fatalf("list lacks %q:\n%s", w, out)
		}
	}
	opts, _, errOut := modelOpts(srv, "missing:1b")
	opts.JSON = true
	if err := modelListRun(opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "the profile's model missing:1b is not installed: `ollm model pull missing:1b` downloads it") {
		t.Fatalf("stderr = %q", errOut)
	}
}

// `ollm model pull` downloads the model with progress (one line per
// status without a terminal; JSON lines with --json); then it is listed.
// An unknown name fails with Ollama's reason.
func TestModelPull(t *testing.T) {
	srv := llmtest.NewOllama(t)
	srv.Pullable(llmtest.Model{Name: "tiny:1b"}, 1_300_000_000, false)
	opts, out, errOut := modelOpts(srv, "tiny:1b")
	if err := modelPullRun(opts, ""); err != nil {
		t.Fatal(err)
	}
	if out.String() != "pulled tiny:1b\n" || !strings.Contains(errOut.String(), "pulling manifest\npulling ") || !strings.Contains(errOut.String(), "(1.3 GB)") ||
		!strings.Contains(errOut.String(), "verifying sha256 digest\nwriting manifest\nsuccess\n") {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}
	if got := srv.Pulled(); len(got) != 1 || got[0] != "tiny:1b" {
		t.Fatalf("pulled %v", got)
	}

	srv.Pullable(llmtest.Model{Name: "other:2b"}, 0, false)
	opts, out, _ = modelOpts(srv, "tiny:1b")
	opts.JSON = true
	if err := modelPullRun(opts, "other:2b"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var last llm.PullProgress
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Status != "success" || len(lines) < 5 {
		t.Fatalf("json lines %q", out)
	}

	opts, _, _ = modelOpts(srv, "x")
	err := modelPullRun(opts, "no-such:1b")
	if err == nil || !strings.Contains(err.Error(), "pulling no-such:1b into Ollama at "+srv.URL+" failed: pull model manifest: file does not exist") {
		t.Fatalf("err = %v", err)
	}
}

// doctor names `ollm model pull` for a missing model.
func TestDoctorModelMissingFix(t *testing.T) {
	srv := llmtest.NewOllama(t)
	opts := &DoctorOptions{Context: context.Background(), Getenv: func(string) string { return "" }, Timeout: 5e9,
		Provider: func(m schema.Model) (llm.Provider, error) { return llm.New(m, llm.Config{}) }}
	r := &schema.Resolved{}
	r.Profile.Model = schema.Model{Provider: "ollama", Name: "nope:1b", Endpoint: srv.URL}
	checks := modelChecks(opts, r)
	last := checks[len(checks)-1]
	if last.Status != CheckFail || last.Fix != "ollm model pull nope:1b   (or choose an installed model: ollm model list)" ||
		!strings.Contains(last.Message, "run `ollm model pull nope:1b`") {
		t.Fatalf("checks = %+v", checks)
	}
}
