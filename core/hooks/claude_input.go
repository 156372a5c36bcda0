package hooks

import (
	"bytes"
	"encoding/json"
)

// claudeHookInput is Claude Code's hook input for h: the common fields
// (session_id, transcript_path, cwd, permission_mode, hook_event_name) and
// the event's own, as Claude Code's hooks reference documents them.
func claudeHookInput(h *Hook, e Event, data map[string]any, s Session) map[string]any {
	m := claudeInput(e, data, s)
	name := ClaudeEventName(e, h.Def.Event)
	m["hook_event_name"] = name
	if m["transcript_path"] == "" {
		m["transcript_path"] = s.Transcript
	}
	m["permission_mode"] = "default"
	if s.PermissionMode != "" {
		m["permission_mode"] = s.PermissionMode
	}
	copyAs(m, data, "tool_call_id", "tool_use_id")
	if r, ok := data["result"]; ok {
		tool, _ := data["tool_name"].(string)
		args, _ := data["args"].(map[string]any)
		m["tool_response"] = claudeToolResponse(tool, args, r)
	}
	switch e {
	case SessionStart:
		if _, ok := m["source"]; !ok {
			m["source"] = "startup"
		}
		if model, ok := data["model"].(string); ok {
			m["model"] = model
		}
	case AfterTool:
		if name == "PostToolUseFailure" {
			delete(m, "tool_response")
			m["error"] = str(data["error"])
			m["is_interrupt"] = data["interrupted"] == true
		}
	case OnError:
		if name == "StopFailure" {
			m["error"] = claudeErrorType(data["error"])
			m["error_details"] = claudeErrorMessage(data["error"])
		}
	case SessionEnd:
		if _, ok := m["reason"]; !ok {
			m["reason"] = "other"
		}
	case OnContextOverflow:
		if _, ok := m["trigger"]; !ok {
			m["trigger"] = "auto"
		}
		if _, ok := m["custom_instructions"]; !ok {
			m["custom_instructions"] = ""
		}
	case OnApprovalRequest:
		tool := str(data["requester"])
		if t, ok := data["tool_name"].(string); ok {
			tool = t
		}
		if _, ok := m["tool_name"]; !ok && tool != "" {
			m["tool_name"] = ClaudeToolName(tool)
		}
		if name == "Notification" {
			if _, ok := m["message"]; !ok {
				m["message"] = "ollm needs your permission to use " + ClaudeToolName(tool)
			}
			m["notification_type"] = "permission_prompt"
		}
	}
	return m
}

// claudeToolResponse is a tool result in the shape Claude Code gives its
// hooks: an object, never a bare string. Bash results carry stdout (ollm
// keeps one text for both streams), file tools the file's path and
// success; every result also has the text as output.
func claudeToolResponse(tool string, args map[string]any, result any) any {
	text, ok := result.(string)
	if !ok {
		return result // already structured
	}
	r := map[string]any{"output": text}
	switch tool {
	case "shell":
		r["stdout"], r["stderr"], r["interrupted"] = text, "", false
	case "read_file", "write_file", "edit_file":
		if p, ok := args["path"].(string); ok {
			r["filePath"] = p
		}
		r["success"] = true
	}
	return r
}

// claudePermissionRequest reads a PermissionRequest answer,
// hookSpecificOutput.decision {behavior, message, updatedInput}: "deny"
// refuses the call without asking; "allow" answers the question for this
// call (data.approved) and may rewrite its arguments (data.args), which
// the policy checks again. Only a call the policy asks about gets here,
// so a policy deny always wins.
func claudePermissionRequest(sub *reader, v *Verdict, e Event) {
	if e != OnApprovalRequest {
		return
	}
	if _, ok := sub.obj["decision"].(map[string]any); !ok {
		return
	}
	d := reader{obj: sub.object("decision")}
	switch d.string("behavior") {
	case "deny":
		v.Block = true
		v.Reason = firstNonEmpty(d.string("message"), "denied by a PermissionRequest hook")
	case "allow":
		v.setData("approved", true)
		if args := d.object("updatedInput"); args != nil {
			v.setData("args", args)
		}
	}
	if d.err != nil && sub.err == nil {
		sub.err = d.err
	}
}

// agentRetry reads a Claude Code Stop or Gemini CLI AfterAgent answer
// the way those tools do: `decision: "block"` (Gemini: "deny") or exit
// code 2 does not end the run but makes the model go on, with the reason
// as the next prompt (data.retry). `continue: false` still stops. An
// ollm-dialect hook asks for the same with data.retry.
func agentRetry(dialect string, e Event, out RunOutput, v Verdict) Verdict {
	if e != AfterAgent || (dialect != DialectClaude && dialect != DialectGemini) || !v.Block || v.Failure != "" {
		return v
	}
	if out.ExitCode != 2 {
		var obj map[string]any
		if json.Unmarshal(bytes.TrimSpace(out.Stdout), &obj) != nil {
			return v
		}
		if obj["continue"] == false || obj["allow"] == false {
			return v
		}
	}
	v.Block = false
	v.setData("retry", v.Reason)
	v.Reason = ""
	return v
}
