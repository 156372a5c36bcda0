#!/usr/bin/env bash
# The hook protocol spec's error example: valid output, exit status 1.
cat >/dev/null
echo '{"allow": false, "message": "Dangerous operation detected"}'
exit 1
