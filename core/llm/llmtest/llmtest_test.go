package llmtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// lines reads an NDJSON body into one map per line.
func lines(t *testing.T, resp *http.Response) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func keys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// The fake's /api/chat stream has the fields and shapes Ollama writes.
func TestOllamaChatWireFormat(t *testing.T) {
	srv := NewOllama(t)
	srv.Reply(Thinking("hm"), Text("Hi"), ToolCall("read_file", map[string]any{"path": "a"}), Tokens(7, 3))
	resp := post(t, srv.URL+"/api/chat", `{"model":"test-model","messages":[{"role":"user","content":"hello"}],"stream":true}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("Content-Type = %q", ct)
	}
	got := lines(t, resp)
	if len(got) != 4 {
		t.Fatalf("got %d lines, want thinking, content, tool call, done", len(got))
	}
	chunk := []string{"created_at", "done", "message", "model"}
	for i, l := range got[:3] {
		if !slices.Equal(keys(l), chunk) || l["done"] != false || l["model"] != "test-model" {
			t.Errorf("chunk %d = %v", i, l)
		}
	}
	if m := got[0]["message"].(map[string]any); m["role"] != "assistant" || m["thinking"] != "hm" || m["content"] != "" {
		t.Errorf("thinking chunk message = %v", m)
	}
	call := got[2]["message"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	fn := call["function"].(map[string]any)
	if call["id"] != "call_00000001" || fn["name"] != "read_file" || fn["index"] != 0.0 || fn["arguments"].(map[string]any)["path"] != "a" {
		t.Errorf("tool call = %v; want id, and arguments as an object", call)
	}
	done := got[3]
	want := []string{"created_at", "done", "done_reason", "eval_count", "eval_duration", "load_duration", "message", "model",
		"prompt_eval_count", "prompt_eval_duration", "total_duration"}
	if !slices.Equal(keys(done), want) {
		t.Errorf("done chunk keys = %v, want %v", keys(done), want)
	}
	if done["done"] != true || done["done_reason"] != "stop" || done["prompt_eval_count"] != 7.0 || done["eval_count"] != 3.0 {
		t.Errorf("done chunk = %v", done)
	}
	if _, ok := done["total_duration"].(float64); !ok {
		t.Errorf("durations must be integers of nanoseconds: %v", done["total_duration"])
	}
}

func TestOllamaErrorsLikeOllama(t *testing.T) {
	srv := NewOllama(t)
	resp := post(t, srv.URL+"/api/chat", `{"model":"nope","messages":[]}`)
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != 404 || body["error"] != "model 'nope' not found" {
		t.Errorf("missing model: %d %v", resp.StatusCode, body)
	}

	srv.Reply(Text("a"), StreamError("boom"))
	got := lines(t, post(t, srv.URL+"/api/chat", `{"model":"test-model:latest","messages":[]}`))
	if len(got) != 2 || !slices.Equal(keys(got[1]), []string{"error"}) || got[1]["error"] != "boom" {
		t.Errorf("stream error lines = %v", got)
	}
}

func TestOllamaRecordsRequests(t *testing.T) {
	srv := NewOllama(t)
	srv.Reply(Text("a"))
	post(t, srv.URL+"/api/chat", `{"model":"test-model","messages":[{"role":"tool","content":"r","tool_name":"read_file","tool_call_id":"c1"}],
		"tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}}],"options":{"num_ctx":4096},"keep_alive":"5m","think":false}`)
	req := srv.LastRequest()
	if m := req.Messages[0]; m.Role != "tool" || m.ToolName != "read_file" || m.ToolCallID != "c1" {
		t.Errorf("message = %+v", m)
	}
	if !slices.Equal(ToolNames(req.Tools), []string{"read_file"}) || req.Options["num_ctx"] != 4096.0 || req.KeepAlive != "5m" || req.Think != false {
		t.Errorf("request = %+v", req)
	}
	if !strings.Contains(string(req.Raw), `"keep_alive":"5m"`) {
		t.Errorf("raw = %s", req.Raw)
	}
}

func TestOpenAIWireFormat(t *testing.T) {
	srv := NewOpenAI(t)
	srv.SplitArguments(3)
	srv.Reply(Text("Hi"), ToolCall("f", map[string]any{"k": "v"}))
	resp := post(t, srv.URL+"/chat/completions", `{"model":"test-model","messages":[{"role":"user","content":"x"}],"stream":true,"stream_options":{"include_usage":true}}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			if !strings.HasPrefix(l, "data: ") {
				t.Fatalf("line %q is not an SSE data line", l)
			}
			events = append(events, strings.TrimPrefix(l, "data: "))
		}
	}
	// role, content, call header, 3 argument pieces of {"k":"v"}, finish, usage, [DONE]
	if len(events) != 9 || events[8] != "[DONE]" {
		t.Fatalf("events = %q", events)
	}
	var args strings.Builder
	for _, e := range events[3:6] {
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Index    int
						Function struct{ Arguments string }
					} `json:"tool_calls"`
				}
			}
		}
		json.Unmarshal([]byte(e), &c)
		args.WriteString(c.Choices[0].Delta.ToolCalls[0].Function.Arguments)
	}
	if args.String() != `{"k":"v"}` {
		t.Errorf("argument pieces join to %q", args.String())
	}
	if !strings.Contains(events[6], `"finish_reason":"tool_calls"`) || !strings.Contains(events[7], `"usage":{`) || !strings.Contains(events[7], `"choices":[]`) {
		t.Errorf("finish and usage = %s / %s", events[6], events[7])
	}
}

// tb records what the fake reports instead of failing the real test.
type tb struct {
	testing.TB
	errors   []string
	cleanups []func()
}

func (f *tb) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *tb) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *tb) finish() {
	for _, fn := range slices.Backward(f.cleanups) {
		fn()
	}
}

func TestScriptMistakesFailTheTest(t *testing.T) {
	f := &tb{TB: t}
	srv := NewOllama(f)
	srv.Reply(Text("never asked for"))
	f.finish()
	if len(f.errors) != 1 || !strings.Contains(f.errors[0], "1 queued replies were never requested") {
		t.Errorf("leftover reply: errors %q", f.errors)
	}

	f = &tb{TB: t}
	srv = NewOllama(f)
	resp := post(t, srv.URL+"/api/chat", `{"model":"test-model","messages":[]}`)
	f.finish()
	if resp.StatusCode != 500 || len(f.errors) != 1 || !strings.Contains(f.errors[0], "no reply was queued") {
		t.Errorf("unscripted request: status %d, errors %q", resp.StatusCode, f.errors)
	}
}

func TestWords(t *testing.T) {
	got := splitWords("the  quick brown ")
	if want := []string{"the  ", "quick ", "brown "}; !slices.Equal(got, want) {
		t.Errorf("splitWords = %q, want %q", got, want)
	}
}

func TestWaitHoldsTheStream(t *testing.T) {
	srv := NewOllama(t)
	gate := make(chan struct{})
	srv.Reply(Text("before"), Wait(gate), Text("after"))
	resp := post(t, srv.URL+"/api/chat", `{"model":"test-model","messages":[]}`)
	r := bufio.NewReader(resp.Body)
	first, _ := r.ReadString('\n')
	if !strings.Contains(first, `"content":"before"`) {
		t.Fatalf("first line = %q", first)
	}
	close(gate) // only now may the rest come
	rest, _ := r.ReadString('\n')
	if !strings.Contains(rest, `"content":"after"`) {
		t.Errorf("line after the gate = %q", rest)
	}
}

func TestOllamaTagsAndPS(t *testing.T) {
	srv := NewOllama(t)
	srv.AddModel(Model{Name: "qwen3:8b", Family: "qwen3"})
	srv.Load("qwen3:8b", 8192)
	var tags struct {
		Models []struct {
			Name    string
			Details struct{ Family string }
		}
	}
	resp, err := http.Get(srv.URL + "/api/tags")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	json.NewDecoder(resp.Body).Decode(&tags)
	if len(tags.Models) != 2 || tags.Models[0].Name != "qwen3:8b" || tags.Models[1].Name != "test-model:latest" || tags.Models[0].Details.Family != "qwen3" {
		t.Errorf("tags = %+v", tags)
	}
	var ps struct {
		Models []struct {
			Name          string
			ContextLength int `json:"context_length"`
		}
	}
	resp2, err := http.Get(srv.URL + "/api/ps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	json.NewDecoder(resp2.Body).Decode(&ps)
	if len(ps.Models) != 1 || ps.Models[0].ContextLength != 8192 {
		t.Errorf("ps = %+v", ps)
	}
}
