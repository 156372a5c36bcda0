#!/usr/bin/env bash
cat >/dev/null
head -c 65536 /dev/urandom
