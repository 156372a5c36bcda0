#!/usr/bin/env bash
# Reads its input and answers with a system message naming itself.
cat >/dev/null
printf '{"continue": true, "systemMessage": "%s"}\n' "${1:-ok}"
