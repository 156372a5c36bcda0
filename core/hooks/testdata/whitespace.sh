#!/usr/bin/env bash
cat >/dev/null
printf '   \n\t\n  \r\n'
