#!/usr/bin/env python3
"""A Claude Code hook using JSON output: denies writes to .env, rewrites
other Bash commands and adds context to prompts."""
import json, os, sys
data = json.load(sys.stdin)
ev = data["hook_event_name"]
if ev == "PreToolUse":
    ti = data.get("tool_input", {})
    if ".env" in ti.get("file_path", ""):
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "no .env edits"}}))
    else:
        ti["command"] = "timeout 10 " + ti.get("command", "")
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "ask", "updatedInput": ti}}))
elif ev == "UserPromptSubmit":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
        "additionalContext": "project dir is " + os.environ.get("CLAUDE_PROJECT_DIR", "?")}}))
elif ev == "PostToolUse":
    print(json.dumps({"decision": "block", "reason": "tool output looked wrong: " + str(data.get("tool_response", {}).get("output"))}))
elif ev == "Stop":
    print("plain text is ignored for Stop")
