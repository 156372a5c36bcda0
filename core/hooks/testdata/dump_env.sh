#!/bin/sh
# Writes its environment to $DUMP_FILE (declared in the hook's env).
cat >/dev/null
env > "$DUMP_FILE"
