#!/bin/sh
# Records the working directory and the settings it received, without
# printing secrets: only the length of the token.
printf '{"continue": true, "systemMessage": "cwd=%s region=%s tokenlen=%s"}\n' "$(pwd)" "$REGION" "${#VAULT_TOKEN}"
