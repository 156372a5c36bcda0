package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"
)

// Gemini CLI's model hooks read and write the request and the response in
// its own stable shape (hookTranslator.ts: LLMRequest, LLMResponse). This
// file maps them onto ollm's event data: the model and its options on
// before_model, the synthetic answer of a BeforeModel hook, the response
// an AfterModel hook rewrites.

// geminiConfigKeys pairs Gemini's generation config keys with the model
// options (Ollama's names; the OpenAI-compatible client maps them again)
// they stand for. Gemini CLI hands its hooks temperature, maxOutputTokens,
// topP and topK; the rest of its LLMRequest.config is accepted too.
var geminiConfigKeys = []struct{ gemini, option string }{
	{"temperature", "temperature"},
	{"maxOutputTokens", "num_predict"},
	{"topP", "top_p"},
	{"topK", "top_k"},
	{"stopSequences", "stop"},
	{"presencePenalty", "presence_penalty"},
	{"frequencyPenalty", "frequency_penalty"},
	{"seed", "seed"},
}

// geminiRequest is the llm_request of BeforeModel, BeforeToolSelection and
// AfterModel: the model, the text messages, the generation config, the
// tools offered under Gemini's names, and on BeforeToolSelection the
// toolConfig a hook narrows.
func geminiRequest(e Event, data map[string]any) map[string]any {
	req := map[string]any{"model": data["model"], "messages": data["messages"], "config": geminiConfig(data["options"])}
	if data["messages"] != nil {
		req["messages"] = geminiMessages(data["messages"])
	}
	switch e {
	case BeforeModel:
		req["tools"] = data["available_tools"]
	case BeforeToolSelection:
		names := geminiToolNames(data["available_tools"], true)
		req["tools"] = names
		req["toolConfig"] = map[string]any{"mode": "AUTO", "allowedFunctionNames": names}
	}
	return req
}

// geminiConfig shows the model options as Gemini's generation config:
// the options it has a name for, set ones only (Gemini leaves unset ones
// out too).
func geminiConfig(v any) map[string]any {
	opts, _ := v.(map[string]any)
	cfg := map[string]any{}
	for _, k := range geminiConfigKeys {
		if val, ok := opts[k.option]; ok && val != nil {
			cfg[k.gemini] = val
		}
	}
	return cfg
}

// geminiResponse is AfterModel's llm_response: the text (the model's
// text, as rewritten by earlier hooks of the chain), one candidate with it
// as its one part, and the token counts when known.
func geminiResponse(data map[string]any) map[string]any {
	text, _ := data["response"].(string)
	if rw, ok := data["rewritten_response"].(string); ok {
		text = rw
	}
	finish := "STOP"
	switch data["done_reason"] {
	case "length":
		finish = "MAX_TOKENS"
	case "stop", "tool_calls", nil, "":
	default:
		finish = "OTHER"
	}
	resp := map[string]any{"text": text, "candidates": []any{map[string]any{
		"content": map[string]any{"role": "model", "parts": []any{text}}, "finishReason": finish, "index": 0,
	}}}
	if t, ok := data["tokens"].(map[string]any); ok {
		resp["usageMetadata"] = map[string]any{
			"promptTokenCount": t["prompt"], "candidatesTokenCount": t["completion"], "totalTokenCount": t["total"],
		}
	}
	return resp
}

// geminiModelVerdict reads a gemini hook's BeforeModel and AfterModel
// answer: llm_request's messages, model and config become messages, model
// and options (what cannot be applied is named in one notice); a
// BeforeModel llm_response is a synthetic answer (the model is not
// called, also when the hook denies, as Gemini CLI does); an AfterModel
// llm_response replaces the response the agent goes on with.
func geminiModelVerdict(ev Event, data map[string]any, v Verdict) Verdict {
	var notes []string
	if req, ok := v.Data["llm_request"].(map[string]any); ok {
		delete(v.Data, "llm_request")
		if ev == BeforeModel {
			notes = applyGeminiRequest(req, data, &v)
		}
	}
	if raw, ok := v.Data["llm_response"]; ok {
		delete(v.Data, "llm_response")
		text, ok := geminiResponseText(raw)
		switch {
		case !ok:
			notes = append(notes, "llm_response has no text (candidates[0].content.parts): ignored")
		case ev == BeforeModel:
			v.Data["synthetic_response"] = text
		default:
			v.Data["rewritten_response"] = text
		}
	}
	v.Notice = joinNonEmpty(append([]string{v.Notice}, notes...))
	return v
}

// applyGeminiRequest maps llm_request's messages, model and config onto
// the verdict's data and returns what could not be applied.
func applyGeminiRequest(req, data map[string]any, v *Verdict) []string {
	var notes []string
	if msgs, ok := req["messages"].([]any); ok {
		v.Data["messages"] = mergeGeminiMessages(data["messages"], msgs)
	}
	switch m := req["model"].(type) {
	case nil:
	case string:
		if m != "" {
			v.Data["model"] = m
		}
	default:
		notes = append(notes, fmt.Sprintf("llm_request.model is %T, not a string: ignored", m))
	}
	if cfg, ok := req["config"].(map[string]any); ok {
		opts, bad := applyGeminiConfig(data["options"], cfg)
		v.Data["options"] = opts
		if len(bad) > 0 {
			notes = append(notes, "llm_request.config "+strings.Join(bad, ", ")+" cannot be applied to the model's options (ollm maps "+geminiConfigNames()+"): ignored")
		}
	}
	return notes
}

// applyGeminiConfig lays a hook's config over the options: a key Gemini
// and the model share is set (null unsets it: the server's default
// applies); keys omitted keep their value. It returns the new options
// and the keys it could not apply, sorted.
func applyGeminiConfig(options any, cfg map[string]any) (map[string]any, []string) {
	cur, _ := options.(map[string]any)
	out := maps.Clone(cur)
	if out == nil {
		out = map[string]any{}
	}
	var bad []string
	for k, val := range cfg {
		opt, ok := geminiOption(k)
		switch {
		case !ok:
			bad = append(bad, k)
		case val == nil:
			out[opt] = nil
		case !configValueOK(k, val):
			bad = append(bad, fmt.Sprintf("%s (%T)", k, val))
		default:
			out[opt] = val
		}
	}
	sort.Strings(bad)
	return out, bad
}

func geminiOption(key string) (string, bool) {
	for _, k := range geminiConfigKeys {
		if k.gemini == key {
			return k.option, true
		}
	}
	return "", false
}

// configValueOK: stopSequences is a list of strings, the others numbers.
func configValueOK(key string, val any) bool {
	if key != "stopSequences" {
		_, ok := val.(float64)
		return ok
	}
	list, ok := val.([]any)
	for _, s := range list {
		if _, isStr := s.(string); !isStr {
			return false
		}
	}
	return ok
}

func geminiConfigNames() string {
	names := make([]string, len(geminiConfigKeys))
	for i, k := range geminiConfigKeys {
		names[i] = k.gemini
	}
	return strings.Join(names, ", ")
}

// geminiSynthetic reads a gemini BeforeModel "deny" that comes with an
// llm_response as Gemini CLI does (hookSystem.ts): the model is not
// called and the response is the answer, so it is not a block; the
// reason is told the user. continue: false still stops, and exit code 2
// still blocks.
func geminiSynthetic(dialect string, e Event, out RunOutput, v Verdict) Verdict {
	if dialect != DialectGemini || e != BeforeModel || !v.Block || v.Failure != "" || out.ExitCode == 2 {
		return v
	}
	var obj map[string]any
	if json.Unmarshal(bytes.TrimSpace(out.Stdout), &obj) != nil || obj["continue"] == false || obj["allow"] == false {
		return v
	}
	hso, _ := obj["hookSpecificOutput"].(map[string]any)
	if _, ok := geminiResponseText(hso["llm_response"]); !ok {
		return v
	}
	v.Block = false
	v.Notice = joinNonEmpty([]string{v.Notice, "answered in place of the model: " + v.Reason})
	v.Reason = ""
	return v
}

// geminiResponseText reads an LLMResponse as Gemini CLI does: the text
// parts of the first candidate, joined (a part may also be {"text": ...});
// a response with no candidates may give its text instead.
func geminiResponseText(v any) (string, bool) {
	resp, _ := v.(map[string]any)
	if cands, ok := resp["candidates"].([]any); ok && len(cands) > 0 {
		c, _ := cands[0].(map[string]any)
		content, _ := c["content"].(map[string]any)
		parts, _ := content["parts"].([]any)
		if len(parts) == 0 {
			return "", false
		}
		var b strings.Builder
		for _, p := range parts {
			switch p := p.(type) {
			case string:
				b.WriteString(p)
			case map[string]any:
				s, _ := p["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String(), true
	}
	text, ok := resp["text"].(string)
	return text, ok
}
