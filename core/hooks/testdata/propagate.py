#!/usr/bin/env python3
"""Adds its name to data.args.seen and returns an extra field; reports
what earlier hooks passed on."""
import json, sys
inp = json.load(sys.stdin)
args = dict(inp["data"].get("args") or {})
seen = list(args.get("seen", []))
seen.append(sys.argv[1])
args["seen"] = seen
extra = inp.get("extra", {})
print(json.dumps({
    "data": {"args": args},
    "systemMessage": "%s saw extra %s" % (sys.argv[1], json.dumps(extra, sort_keys=True)),
    "note_" + sys.argv[1]: True,
}))
