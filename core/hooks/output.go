package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// RunOutput is what running a hook produced, before interpretation.
type RunOutput struct {
	Stdout    []byte // capped
	Stderr    []byte // the first part, for exit-code-2 reasons
	ExitCode  int    // -1 when killed by a signal or never started
	TimedOut  bool
	Truncated bool  // stdout was cut at the cap
	StartErr  error // the hook could not start
	Err       error // any other failure talking to the hook
}

// Failure kinds of a hook run.
const (
	FailStart     = "start"
	FailTimeout   = "timeout"
	FailCrash     = "crash"
	FailMalformed = "malformed"
)

// Verdict is what one hook's answer means, in dialect-free terms.
type Verdict struct {
	Block         bool
	Reason        string
	SystemMessage string
	Data          map[string]any // merged into the event data
	Extra         map[string]any // unknown fields, passed to later hooks
	Failure       string         // "" or one of the Fail* kinds
	Detail        string         // what went wrong, for the log
	// Tool selection as Gemini CLI combines it (before_tool_selection):
	// NoTools (toolConfig.mode "NONE") wins over every list; Allowed
	// lists of several gemini hooks are a union, not filters in turn.
	NoTools bool
	Allowed []any
	// Notice is said to the user: what of the answer ollm could not apply.
	Notice string
}

// Interpret turns a hook's run into a Verdict. It is pure.
func Interpret(dialect string, e Event, out RunOutput) Verdict {
	return agentRetry(dialect, e, out, geminiSynthetic(dialect, e, out, interpret(dialect, e, out)))
}

func interpret(dialect string, e Event, out RunOutput) Verdict {
	switch {
	case out.StartErr != nil:
		return Verdict{Failure: FailStart, Detail: out.StartErr.Error()}
	case out.TimedOut:
		return Verdict{Failure: FailTimeout, Detail: "timed out"}
	case out.Err != nil:
		return Verdict{Failure: FailCrash, Detail: out.Err.Error()}
	case out.ExitCode == 2:
		reason := strings.TrimSpace(string(out.Stderr))
		if reason == "" {
			reason = "blocked by hook (exit status 2)"
		}
		return Verdict{Block: true, Reason: reason}
	}
	text := bytes.TrimSpace(out.Stdout)
	if len(text) == 0 {
		if out.ExitCode != 0 {
			return Verdict{Failure: FailCrash, Detail: exitDetail(out)}
		}
		return Verdict{}
	}
	var obj map[string]any
	if err := json.Unmarshal(text, &obj); err != nil || obj == nil {
		return nonJSON(dialect, e, out, text, err)
	}
	v, err := fromObject(e, obj)
	if err != nil {
		return Verdict{Failure: FailMalformed, Detail: err.Error()}
	}
	return v
}

func exitDetail(out RunOutput) string {
	d := fmt.Sprintf("exited with status %d", out.ExitCode)
	if s := strings.TrimSpace(string(out.Stderr)); s != "" {
		d += ": " + firstLine(s)
	}
	return d
}

// nonJSON handles output that is not a JSON object. Claude and Gemini add
// plain stdout of prompt and session-start hooks to the context.
func nonJSON(dialect string, e Event, out RunOutput, text []byte, err error) Verdict {
	if out.ExitCode != 0 {
		return Verdict{Failure: FailCrash, Detail: exitDetail(out)}
	}
	if dialect != DialectOllm && dialect != "" && (e == BeforeAgent || e == SessionStart) && utf8.Valid(text) {
		return Verdict{SystemMessage: string(text)}
	}
	detail := "output is not a JSON object"
	if err != nil {
		detail = "output is not JSON: " + err.Error()
	}
	if out.Truncated {
		detail += " (output was cut at the size limit)"
	}
	if utf8.Valid(text) {
		detail += ": " + clip(firstLine(string(text)), 120)
	} else {
		detail += fmt.Sprintf(" (%d bytes, not UTF-8)", len(text))
	}
	return Verdict{Failure: FailMalformed, Detail: detail}
}

// fromObject reads the fields of every dialect from one output object.
func fromObject(e Event, obj map[string]any) (Verdict, error) {
	var v Verdict
	r := reader{obj: obj}
	cont, allow := r.boolean("continue", true), r.boolean("allow", true)
	reason := firstNonEmpty(r.string("reason"), r.string("stopReason"))
	msg := r.string("message")
	sys := []string{r.string("systemMessage"), r.string("additionalContext")}
	v.Data = r.object("data")
	v.Block = !cont || !allow
	switch r.string("decision") {
	case "block", "deny":
		v.Block = true
	}
	sys = append(sys, r.specific(&v, e)...)
	if args := r.object("updatedInput"); args != nil && e == BeforeTool {
		v.setData("args", args)
	}
	if v.Block {
		v.Reason = firstNonEmpty(v.Reason, reason, msg, "blocked by hook")
	}
	if msg != "" && msg != v.Reason {
		sys = append([]string{msg}, sys...)
	}
	v.SystemMessage = joinNonEmpty(sys)
	if r.err != nil {
		return Verdict{}, r.err
	}
	for k, val := range r.rest() {
		v.setExtra(k, val)
	}
	return v, nil
}

// specific reads hookSpecificOutput and returns context it adds.
func (r *reader) specific(v *Verdict, e Event) []string {
	hso := r.object("hookSpecificOutput")
	if hso == nil {
		return nil
	}
	sub := reader{obj: hso}
	switch sub.string("permissionDecision") {
	case "deny":
		v.Block = true
		v.Reason = sub.string("permissionDecisionReason")
	case "ask", "allow":
		v.setExtra("permissionDecision", hso["permissionDecision"])
		v.setExtra("permissionDecisionReason", hso["permissionDecisionReason"])
	}
	claudePermissionRequest(&sub, v, e)
	if args := sub.object("updatedInput"); args != nil && e == BeforeTool {
		v.setData("args", args)
	}
	if args := sub.object("tool_input"); args != nil && e == BeforeTool {
		v.setData("args", args)
	}
	if req := sub.object("llm_request"); req != nil && e == BeforeModel {
		v.setData("llm_request", req) // Gemini's request rewrite; geminiVerdict merges it
	}
	if resp, ok := hso["llm_response"]; ok && resp != nil && (e == BeforeModel || e == AfterModel) {
		v.setData("llm_response", sub.object("llm_response")) // Gemini's synthetic or rewritten response
	}
	if e == AfterAgent && sub.boolean("clearContext", false) {
		v.setData("clear_context", true) // Gemini CLI: with a deny or a stop, the history goes
	}
	if tc := sub.object("toolConfig"); tc != nil && e == BeforeToolSelection {
		if names, ok := tc["allowedFunctionNames"].([]any); ok {
			v.setData("available_tools", names)
		}
		if tc["mode"] == "NONE" { // Gemini: no tools this request
			v.setData("available_tools", []any{})
			v.NoTools = true
		}
		if tc["mode"] == "ANY" { // Gemini: a tool call is required (NONE wins)
			v.setData("tool_choice", "required")
		}
	}
	if sub.err != nil && r.err == nil {
		r.err = sub.err
	}
	return []string{sub.string("additionalContext")}
}

func (v *Verdict) setData(k string, val any) {
	if v.Data == nil {
		v.Data = map[string]any{}
	}
	v.Data[k] = val
}

func (v *Verdict) setExtra(k string, val any) {
	if val == nil {
		return
	}
	if v.Extra == nil {
		v.Extra = map[string]any{}
	}
	v.Extra[k] = val
}

// reader takes typed fields out of an output object, remembering the
// first type error and which fields it consumed.
type reader struct {
	obj  map[string]any
	used []string
	err  error
}

func (r *reader) take(k string) (any, bool) {
	v, ok := r.obj[k]
	if ok {
		r.used = append(r.used, k)
	}
	return v, ok && v != nil
}

func (r *reader) fail(k, want string, got any) {
	if r.err == nil {
		r.err = fmt.Errorf("field %q is %T, want %s", k, got, want)
	}
}

func (r *reader) boolean(k string, def bool) bool {
	v, ok := r.take(k)
	if !ok {
		return def
	}
	b, isBool := v.(bool)
	if !isBool {
		r.fail(k, "a boolean", v)
		return def
	}
	return b
}

func (r *reader) string(k string) string {
	v, ok := r.take(k)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		r.fail(k, "a string", v)
	}
	return s
}

func (r *reader) object(k string) map[string]any {
	v, ok := r.take(k)
	if !ok {
		return nil
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		r.fail(k, "an object", v)
	}
	return m
}

// rest returns the fields nobody consumed.
func (r *reader) rest() map[string]any {
	var out map[string]any
	for k, v := range r.obj {
		if !contains(r.used, k) {
			if out == nil {
				out = map[string]any{}
			}
			out[k] = v
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func joinNonEmpty(ss []string) string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
