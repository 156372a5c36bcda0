package llmtest

import (
	"net/http"
	"strings"
	"testing"
)

// The fake's /api/pull writes what Ollama writes: NDJSON lines with
// status, and digest/total/completed while a layer downloads, ending in
// "success"; the model is then in /api/tags.
func TestOllamaPullWireFormat(t *testing.T) {
	srv := NewOllama(t)
	srv.Pullable(Model{Name: "qwen3:0.6b", ParameterSize: "751.63M"}, 522_000_000, false)
	ls := lines(t, post(t, srv.URL+"/api/pull", `{"model":"qwen3:0.6b"}`))
	if len(ls) < 5 || ls[0]["status"] != "pulling manifest" || ls[len(ls)-1]["status"] != "success" {
		t.Fatalf("pull stream = %v", ls)
	}
	var sawProgress bool
	for _, l := range ls[1 : len(ls)-1] {
		st, _ := l["status"].(string)
		if strings.HasPrefix(st, "pulling ") {
			d, _ := l["digest"].(string)
			if !strings.HasPrefix(d, "sha256:") || st != "pulling "+d[7:19] || l["total"] == nil {
				t.Errorf("layer line %v: want status \"pulling <12 hex of digest>\", digest sha256:..., total", l)
			}
			if c, ok := l["completed"].(float64); ok && c > 0 && c < l["total"].(float64) {
				sawProgress = true
			}
			for _, k := range keys(l) {
				if k != "status" && k != "digest" && k != "total" && k != "completed" {
					t.Errorf("layer line has key %q", k)
				}
			}
		}
	}
	if !sawProgress {
		t.Errorf("no partial progress line in %v", ls)
	}
	if ls[len(ls)-3]["status"] != "verifying sha256 digest" || ls[len(ls)-2]["status"] != "writing manifest" {
		t.Errorf("the end of the stream = %v", ls[len(ls)-3:])
	}
	if _, ok := srv.model("qwen3:0.6b"); !ok {
		t.Error("the pulled model is not installed")
	}
	if got := srv.Pulled(); len(got) != 1 || got[0] != "qwen3:0.6b" {
		t.Errorf("Pulled() = %v", got)
	}
}

// A name the registry lacks: "pulling manifest", then an error object
// in the stream (HTTP 200, as Ollama streams it).
func TestOllamaPullUnknown(t *testing.T) {
	srv := NewOllama(t)
	resp := post(t, srv.URL+"/api/pull", `{"model":"no-such"}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	ls := lines(t, resp)
	if len(ls) != 2 || ls[0]["status"] != "pulling manifest" || ls[1]["error"] != "pull model manifest: file does not exist" {
		t.Fatalf("pull stream = %v", ls)
	}
}
