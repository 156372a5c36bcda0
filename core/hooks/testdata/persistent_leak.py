#!/usr/bin/env python3
"""A persistent hook that leaks its LOGIN setting: to stderr (in two
writes), in a notification and in its system message."""
import json, os, sys
secret = os.environ.get("LOGIN", "")
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        sys.stderr.write("hello with " + secret[:4]); sys.stderr.flush()
        sys.stderr.write(secret[4:] + "\n"); sys.stderr.flush()
        print(json.dumps({"type": "hello"}), flush=True)
        print(json.dumps({"type": "notify", "level": "info", "message": "logged in as " + secret}), flush=True)
    elif msg.get("type") == "shutdown":
        break
    else:
        print(json.dumps({"id": msg["id"], "systemMessage": "token " + secret}), flush=True)
