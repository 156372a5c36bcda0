#!/usr/bin/env bash
cat >/dev/null
echo '{"continue": false, "reason": "blocked by block.sh", "systemMessage": "block.sh was here"}'
