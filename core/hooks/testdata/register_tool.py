#!/usr/bin/env python3
"""A persistent hook ported from a seed-002 extension: after its hello it
registers the tool "forecast" (and one with a name ollm refuses), answers
tool_call with tool_result, and answers events."""
import json, os, sys

def send(obj):
    print(json.dumps(obj), flush=True)

for line in sys.stdin:
    msg = json.loads(line)
    t = msg.get("type")
    if t == "hello":
        send({"type": "hello"})
        send({"type": "register_tool", "name": "forecast", "description": "weather for a city",
              "schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}})
        send({"type": "register_tool", "name": "bad name!", "description": "refused"})
        send({"type": "ready"})
    elif t == "shutdown":
        break
    elif t == "tool_call":
        city = msg["args"].get("city", "")
        if city == "nowhere":
            send({"type": "tool_result", "id": msg["id"], "is_error": True,
                  "content": [{"type": "text", "text": "no such city"}]})
        else:
            send({"type": "tool_result", "id": msg["id"],
                  "content": [{"type": "text", "text": "%s: 16C, fog (key %s)" % (city, os.environ.get("LOGIN", "-"))}]})
    else:
        send({"id": msg["id"]})
