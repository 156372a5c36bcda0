#!/usr/bin/env bash
# 100 MB of output on stdout.
cat >/dev/null
head -c 100000000 /dev/zero | tr '\0' 'x'
