#!/usr/bin/env bash
cat >/dev/null
echo '{"continue": true}'
echo "exit2.sh refuses this" >&2
exit 2
