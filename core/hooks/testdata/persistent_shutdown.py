#!/usr/bin/env python3
"""Records whether it got a clean shutdown request."""
import json, os, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        print(json.dumps({"type": "hello"}), flush=True)
    elif msg.get("type") == "shutdown":
        with open(os.environ["SHUTDOWN_FILE"], "w") as f:
            f.write("clean\n")
        sys.exit(0)
    else:
        print(json.dumps({"id": msg["id"]}), flush=True)
