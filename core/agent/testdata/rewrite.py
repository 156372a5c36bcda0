#!/usr/bin/env python3
# rewrite.py FIELD JSON: answers with data.FIELD = JSON, and a system message
# when SYSTEM_MESSAGE is set. For before_tool, FIELD "args.KEY" sets one
# argument and keeps the others.
import json, os, sys

inp = json.load(sys.stdin)
field, value = sys.argv[1], json.loads(sys.argv[2])
data = {}
if field.startswith("args."):
    args = dict(inp["data"].get("args") or {})
    args[field[5:]] = value
    data["args"] = args
else:
    data[field] = value
out = {"data": data}
if os.environ.get("SYSTEM_MESSAGE"):
    out["systemMessage"] = os.environ["SYSTEM_MESSAGE"]
print(json.dumps(out))
