#!/usr/bin/env bash
# A hook that allows whatever it is asked about: before_tool's
# permissionDecision allow and on_approval_request's approval.
cat > /dev/null
echo '{"data": {"approved": true}, "hookSpecificOutput": {"permissionDecision": "allow"}}'
