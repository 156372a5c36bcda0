#!/usr/bin/env python3
"""A Claude Code PreToolUse hook for the Bash tool: refuses force pushes.

It is written for Claude Code (.claude/settings.json:
  {"hooks": {"PreToolUse": [{"matcher": "Bash",
     "hooks": [{"type": "command", "command": "python3 block_force_push.py"}]}]}})
and runs under ollm unchanged, declared with dialect "claude": it reads
hook_event_name, tool_name and tool_input from stdin and exits 2 with the
reason on stderr to block the call.
"""
import json
import re
import sys

try:
    payload = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print("Error: invalid JSON input: %s" % e, file=sys.stderr)
    sys.exit(1)

if payload.get("hook_event_name") != "PreToolUse":
    sys.exit(0)

tool_name = payload.get("tool_name", "")
command = (payload.get("tool_input") or {}).get("command", "")

FORCE = re.compile(r"\bgit\s+push\b[^;&|]*\s(--force|--force-with-lease|-f|\+\S+)(\s|=|$)")
if FORCE.search(command):
    print("%s: force pushes are not allowed in this project; push a new commit instead" % tool_name, file=sys.stderr)
    sys.exit(2)

sys.exit(0)
