#!/usr/bin/env bash
# Answers at once but leaves a child holding stdout open.
cat >/dev/null
sleep 3600 &
echo $! >> "$PID_FILE"
echo '{"systemMessage": "answered before my child finished"}'
