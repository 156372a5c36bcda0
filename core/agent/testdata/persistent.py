#!/usr/bin/env python3
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        sys.stdout.write('{"type":"hello"}\n')
    elif msg.get("type") == "shutdown":
        break
    else:
        sys.stdout.write('{"id":%d}\n' % msg["id"])
    sys.stdout.flush()
