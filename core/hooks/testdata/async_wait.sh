#!/usr/bin/env bash
# An observer that can only finish after the synchronous hook after it has
# run: if the engine waited for it, the event would never complete.
cat >/dev/null
while ! grep -q sync "$ORDER_FILE" 2>/dev/null; do sleep 0.05; done
echo observer >> "$ORDER_FILE"
