#!/usr/bin/env bash
# Blocks whatever event it is attached to, naming the event.
set -eu
ev=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["event"])')
printf '{"continue": false, "reason": "no %s today"}\n' "$ev"
