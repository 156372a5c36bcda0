#!/usr/bin/env bash
cat >/dev/null
echo "crash.sh: something broke" >&2
exit 3
