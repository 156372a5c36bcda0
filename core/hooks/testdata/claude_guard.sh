#!/usr/bin/env bash
# A Claude Code PreToolUse hook, unchanged: blocks rm -rf with exit 2.
input=$(cat)
event=$(echo "$input" | jq -r '.hook_event_name')
cmd=$(echo "$input" | jq -r '.tool_input.command // empty')
if [ "$event" != "PreToolUse" ]; then
  echo "unexpected event $event" >&2
  exit 1
fi
if echo "$cmd" | grep -q 'rm -rf'; then
  echo "Blocked: rm -rf is not allowed (session $(echo "$input" | jq -r .session_id))" >&2
  exit 2
fi
exit 0
