#!/usr/bin/env bash
# Leaks its secrets: the setting in two writes to stderr (split inside the
# value), a secret-looking variable and a URL password; then fails as
# asked ($1: crash, block, message).
cat >/dev/null
printf 'auth failed for token %s' "${LOGIN:0:5}" >&2
sleep 0.05
printf '%s api=%s url=https://bot:%s@example.test/x\n' "${LOGIN:5}" "$MY_API_KEY" "$URL_PASS" >&2
case "$1" in
crash) exit 1 ;;
block) exit 2 ;;
message) echo "{\"systemMessage\": \"using $LOGIN\", \"continue\": false, \"reason\": \"denied for $LOGIN\"}" ;;
esac
