#!/usr/bin/env bash
cat >/dev/null
printf '{"systemMessage": "%s %s %s %s"}\n' "$OLLM_HOOK_EVENT" "$MY_SETTING" "$HOOK_OWN" "$(pwd)"
