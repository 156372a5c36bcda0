#!/usr/bin/env python3
"""A persistent hook that keeps the hello ollm sent and answers every
event with it, as its system message."""
import json, sys
hello = {}
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        hello = msg
        print(json.dumps({"type": "hello"}), flush=True)
    elif msg.get("type") == "shutdown":
        break
    else:
        print(json.dumps({"id": msg["id"], "systemMessage": json.dumps(hello, sort_keys=True)}), flush=True)
