package hooks

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/schema"
)

// A gemini hook reads the request as Gemini CLI's hookTranslator shows it:
// the model, text messages and the generation config under Gemini's names
// (options it has no name for, such as num_ctx, are not shown); AfterModel
// also has the response as an LLMResponse.
func TestGeminiModelInput(t *testing.T) {
	h := &Hook{Name: "g", Def: schema.Hook{Dialect: DialectGemini}}
	opts := map[string]any{"temperature": 0.2, "num_predict": 256, "top_k": 40, "num_ctx": 8192, "stop": []any{"END"}}
	msgs := []any{map[string]any{"role": "user", "content": "hi"}}
	in := input(t, h, BeforeModel, map[string]any{"model": "qwen3:8b", "messages": msgs, "options": opts})
	req := in["llm_request"].(map[string]any)
	wantCfg := map[string]any{"temperature": 0.2, "maxOutputTokens": 256.0, "topK": 40.0, "stopSequences": []any{"END"}}
	if req["model"] != "qwen3:8b" || !reflect.DeepEqual(req["config"], wantCfg) {
		t.Errorf("BeforeModel llm_request = %v, want model and config %v", req, wantCfg)
	}
	in = input(t, h, BeforeToolSelection, map[string]any{"model": "m", "messages": msgs, "available_tools": []any{"shell"}})
	if cfg := in["llm_request"].(map[string]any)["config"]; !reflect.DeepEqual(cfg, map[string]any{}) {
		t.Errorf("BeforeToolSelection config without options = %v, want {}", cfg)
	}
	in = input(t, h, AfterModel, map[string]any{"model": "m", "messages": msgs, "options": opts, "response": "4",
		"done_reason": "length", "tokens": map[string]any{"prompt": 10, "completion": 1, "total": 11}})
	want := map[string]any{"text": "4", "candidates": []any{map[string]any{"index": 0.0, "finishReason": "MAX_TOKENS",
		"content": map[string]any{"role": "model", "parts": []any{"4"}}}},
		"usageMetadata": map[string]any{"promptTokenCount": 10.0, "candidatesTokenCount": 1.0, "totalTokenCount": 11.0}}
	if !reflect.DeepEqual(in["llm_response"], want) {
		t.Errorf("AfterModel llm_response = %v\nwant %v", in["llm_response"], want)
	}
	if r := in["llm_request"].(map[string]any); r["model"] != "m" || r["config"].(map[string]any)["temperature"] != 0.2 {
		t.Errorf("AfterModel llm_request = %v", r)
	}
}

func input(t *testing.T, h *Hook, e Event, data map[string]any) map[string]any {
	t.Helper()
	b, err := BuildInput(h, e, data, nil, Session{ID: "s"}, time.Unix(0, 0), 0)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// What a gemini BeforeModel or AfterModel hook answers, mapped onto the
// event data as Gemini CLI applies it (hookSystem.ts, types.ts).
func TestGeminiModelVerdict(t *testing.T) {
	opts := map[string]any{"temperature": 0.7, "top_k": 40.0, "num_ctx": 8192.0}
	data := map[string]any{"model": "m", "options": opts, "response": "the answer"}
	tests := []struct {
		name   string
		ev     Event
		out    string
		exit   int
		block  bool
		data   map[string]any // the fields of the verdict's data that must be there
		notice string         // a part of the notice; "" none
	}{
		{name: "config and model", ev: BeforeModel,
			out:  `{"hookSpecificOutput": {"llm_request": {"model": "small", "config": {"temperature": 0.1, "maxOutputTokens": 64}}}}`,
			data: map[string]any{"model": "small", "options": map[string]any{"temperature": 0.1, "num_predict": 64.0, "top_k": 40.0, "num_ctx": 8192.0}}},
		{name: "null unsets, omitted keys stay", ev: BeforeModel,
			out:  `{"hookSpecificOutput": {"llm_request": {"config": {"topK": null}}}}`,
			data: map[string]any{"options": map[string]any{"temperature": 0.7, "top_k": nil, "num_ctx": 8192.0}}},
		{name: "what does not map is named", ev: BeforeModel,
			out:    `{"hookSpecificOutput": {"llm_request": {"config": {"temperature": 0, "candidateCount": 2, "topP": "high", "responseMimeType": "application/json"}}}}`,
			data:   map[string]any{"options": map[string]any{"temperature": 0.0, "top_k": 40.0, "num_ctx": 8192.0}},
			notice: "llm_request.config candidateCount, responseMimeType, topP (string) cannot be applied"},
		{name: "synthetic response", ev: BeforeModel,
			out:  `{"hookSpecificOutput": {"llm_response": {"candidates": [{"content": {"role": "model", "parts": ["cached ", "answer"]}, "finishReason": "STOP"}]}}}`,
			data: map[string]any{"synthetic_response": "cached answer"}},
		{name: "deny with a response answers", ev: BeforeModel,
			out:    `{"decision": "deny", "reason": "offline", "hookSpecificOutput": {"llm_response": {"candidates": [{"content": {"parts": ["no network"]}}]}}}`,
			data:   map[string]any{"synthetic_response": "no network"},
			notice: "answered in place of the model: offline"},
		{name: "continue false still stops", ev: BeforeModel, block: true,
			out: `{"continue": false, "stopReason": "halt", "hookSpecificOutput": {"llm_response": {"candidates": [{"content": {"parts": ["x"]}}]}}}`},
		{name: "deny without a response blocks", ev: BeforeModel, block: true,
			out: `{"decision": "deny", "reason": "no"}`},
		{name: "exit 2 blocks", ev: BeforeModel, block: true, exit: 2,
			out: `{"hookSpecificOutput": {"llm_response": {"candidates": [{"content": {"parts": ["x"]}}]}}}`},
		{name: "response rewrite", ev: AfterModel,
			out:  `{"hookSpecificOutput": {"llm_response": {"candidates": [{"content": {"role": "model", "parts": ["[FILTERED]"]}}]}}}`,
			data: map[string]any{"rewritten_response": "[FILTERED]"}},
		{name: "a response without parts is ignored", ev: AfterModel,
			out:    `{"hookSpecificOutput": {"llm_response": {"candidates": [{"content": {"parts": []}}]}}}`,
			notice: "llm_response has no text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := RunOutput{Stdout: []byte(tt.out), ExitCode: tt.exit}
			v := geminiVerdict(tt.ev, data, Interpret(DialectGemini, tt.ev, out))
			if v.Block != tt.block || v.Failure != "" {
				t.Fatalf("block = %v (%s), failure %q; want block %v", v.Block, v.Reason, v.Failure, tt.block)
			}
			for k, want := range tt.data {
				if !reflect.DeepEqual(v.Data[k], want) {
					t.Errorf("data %s = %#v, want %#v", k, v.Data[k], want)
				}
			}
			for _, k := range []string{"llm_request", "llm_response"} {
				if _, ok := v.Data[k]; ok {
					t.Errorf("data keeps Gemini's %s: %v", k, v.Data)
				}
			}
			if (tt.notice == "") != (v.Notice == "") || !strings.Contains(v.Notice, tt.notice) {
				t.Errorf("notice = %q, want one with %q", v.Notice, tt.notice)
			}
		})
	}
	if opts["temperature"] != 0.7 || len(opts) != 3 {
		t.Errorf("the event's options were changed: %v", opts)
	}
}

// Gemini CLI's AfterAgent clearContext is read with the deny that makes
// the model go on (and with a stop); several hooks: any true wins.
func TestGeminiClearContext(t *testing.T) {
	v := Interpret(DialectGemini, AfterAgent, RunOutput{Stdout: []byte(
		`{"decision": "deny", "reason": "start over", "hookSpecificOutput": {"hookEventName": "AfterAgent", "clearContext": true}}`)})
	if v.Block || v.Data["retry"] != "start over" || v.Data["clear_context"] != true {
		t.Fatalf("verdict = %+v", v)
	}
	f := NewFold(nil)
	f.Apply("a", false, v)
	f.Apply("b", false, Interpret(DialectGemini, AfterAgent, RunOutput{Stdout: []byte(`{"hookSpecificOutput": {"clearContext": false}}`)}))
	if f.Data["clear_context"] != true {
		t.Errorf("a later false cleared an earlier true: %v", f.Data)
	}
	bad := Interpret(DialectGemini, AfterAgent, RunOutput{Stdout: []byte(`{"hookSpecificOutput": {"clearContext": "yes"}}`)})
	if bad.Failure != FailMalformed {
		t.Errorf("clearContext \"yes\" = %+v, want malformed", bad)
	}
}

// A notice of one hook reaches the outcome, naming the hook.
func TestGeminiNoticeInOutcome(t *testing.T) {
	h := geminiHook(t, "cfg", BeforeModel, "", `
import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"llm_request": {"config": {"temperature": 0.1, "candidateCount": 3}}}}))
`)
	e := newEngine(t, Options{}, h)
	out, err := e.Emit(context.Background(), BeforeModel, map[string]any{"model": "m", "options": map[string]any{"temperature": 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Data["options"]; !reflect.DeepEqual(got, map[string]any{"temperature": 0.1}) {
		t.Errorf("options = %v", got)
	}
	if len(out.Notices) != 1 || !strings.Contains(out.Notices[0], "hook cfg: llm_request.config candidateCount cannot be applied") {
		t.Errorf("notices = %q", out.Notices)
	}
}

// BenchmarkGeminiModelInput is the cost of a gemini AfterModel input (the
// request's 200 messages, the config, the response) and of reading a
// BeforeModel config rewrite back, per model request.
func BenchmarkGeminiModelInput(b *testing.B) {
	h := &Hook{Name: "g", Def: schema.Hook{Dialect: DialectGemini}}
	var msgs []any
	for i := range 200 {
		msgs = append(msgs, map[string]any{"role": []string{"user", "assistant"}[i%2], "content": strings.Repeat("word ", 60)})
	}
	data := map[string]any{"model": "m", "messages": msgs, "options": map[string]any{"temperature": 0.2, "num_ctx": 8192},
		"response": "the answer", "tokens": map[string]any{"prompt": 9000, "completion": 10, "total": 9010}}
	out := RunOutput{Stdout: []byte(`{"hookSpecificOutput": {"llm_request": {"config": {"temperature": 0.1, "maxOutputTokens": 64}}}}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildInput(h, AfterModel, data, nil, Session{ID: "s"}, time.Unix(0, 0), 0); err != nil {
			b.Fatal(err)
		}
		geminiVerdict(BeforeModel, data, Interpret(DialectGemini, BeforeModel, out))
	}
}
