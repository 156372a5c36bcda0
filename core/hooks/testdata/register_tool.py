#!/usr/bin/env python3
"""A persistent hook ported from a seed-002 extension: it registers a tool
over the channel after its hello, then answers events."""
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        print(json.dumps({"type": "hello"}), flush=True)
        print(json.dumps({"type": "register_tool", "name": "weather", "description": "current weather",
                          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}), flush=True)
    elif msg.get("type") == "shutdown":
        break
    else:
        print(json.dumps({"id": msg["id"]}), flush=True)
