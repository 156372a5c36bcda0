#!/usr/bin/env bash
# Ignores SIGTERM (and so does its child), so only SIGKILL ends it.
trap '' TERM
sleep 3600 &
echo $$ $! >> "$PID_FILE"
while true; do sleep 1; done
