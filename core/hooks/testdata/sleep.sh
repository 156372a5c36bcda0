#!/usr/bin/env bash
# Never answers; records its pid in $PID_FILE.
echo $$ >> "$PID_FILE"
sleep 3600
