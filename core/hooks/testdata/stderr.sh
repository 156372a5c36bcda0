#!/usr/bin/env bash
cat >/dev/null
echo "stderr line from $1" >&2
echo '{}'
