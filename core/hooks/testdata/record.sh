#!/usr/bin/env bash
# Appends its name to $ORDER_FILE, so tests see the execution order.
cat >/dev/null
echo "$1" >> "$ORDER_FILE"
echo '{}'
