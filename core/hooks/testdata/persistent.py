#!/usr/bin/env python3
"""A persistent hook: newline-delimited JSON with ids. Answers hello,
counts events, and with --crash-after N exits after N events."""
import json, os, sys
crash_after = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[1] == "--crash-after" else 0
pid_file = os.environ.get("PID_FILE")
if pid_file:
    with open(pid_file, "a") as f:
        f.write("%d\n" % os.getpid())
n = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        print(json.dumps({"type": "hello"}), flush=True)
    elif msg.get("type") == "shutdown":
        break
    else:
        n += 1
        if crash_after and n > crash_after:
            sys.exit(7)
        print(json.dumps({"id": msg["id"], "systemMessage": "pid %d event %d %s" % (os.getpid(), n, msg["event"])}), flush=True)
