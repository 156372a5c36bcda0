#!/usr/bin/env python3
"""A Claude Code PreToolUse hook written as hookify and security-guidance
write theirs: it reads Edit's old_string and MultiEdit's edits, blocks an
edit of a protected line with exit code 2, and logs what it saw."""
import json, os, sys
data = json.load(sys.stdin)
name, ti = data["tool_name"], data.get("tool_input", {})
log = os.environ.get("EVENT_LOG")
if log:
    with open(log, "a") as f:
        f.write(name + " " + json.dumps(ti, sort_keys=True) + "\n")
olds = []
if name == "Edit":
    olds = [ti["old_string"]]
elif name == "MultiEdit":
    olds = [e["old_string"] for e in ti["edits"]]
for old in olds:
    if "PROTECTED" in old:
        print("edit of a PROTECTED line in " + ti["file_path"], file=sys.stderr)
        sys.exit(2)
