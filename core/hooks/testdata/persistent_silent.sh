#!/usr/bin/env bash
# Never answers the handshake.
echo $$ >> "$PID_FILE"
sleep 3600
