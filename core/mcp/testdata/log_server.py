#!/usr/bin/env python3
# A minimal stdio MCP server that sends notifications/message at four
# levels right after the handshake (for Options.OnLog).
import json, sys

def send(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()

for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": msg["params"].get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}, "logging": {}},
            "serverInfo": {"name": "log-server", "version": "1.0.0"}}})
    elif method == "notifications/initialized":
        for level, data in [("debug", "d"), ("info", "i"), ("warning", "disk almost full"),
                            ("error", {"code": 7})]:
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": level, "logger": "store", "data": data}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": []}})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
