#!/usr/bin/env bash
# Appends its input (one JSON object) as one line to $EVENT_LOG.
set -eu
input=$(cat)
printf '%s\n' "$input" >> "$EVENT_LOG"
