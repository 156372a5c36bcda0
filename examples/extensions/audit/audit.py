#!/usr/bin/env python3
"""audit: a persistent ollm before_tool hook that appends every tool call
to a JSON-lines log.

A persistent hook is one process for the whole session. It speaks
newline-delimited JSON on stdin/stdout:

  host -> hook  {"type":"hello","protocolVersion":...,"hookName":...}
  hook -> host  {"type":"hello"}                     (within 5 s)
  host -> hook  {"id":N,"event":"before_tool","data":{...},"metadata":{...}}
  hook -> host  {"id":N}                              (the normal output plus the same id)
  host -> hook  {"type":"shutdown"}, then stdin closes

Answering {"id": N} alone lets the call through. Diagnostics go to
stderr, which ollm writes to $OLLM_HOME/logs/ext-audit.log; stdout is
only for protocol lines.

The log file is $OLLM_AUDIT_LOG (the extension's logFile setting), default
audit.jsonl in $OLLM_EXTENSION_DATA (.ollm/data/audit in the project: the
one place under the protected .ollm/ the hook's sandbox lets it write); a
relative path is taken from the project directory ($OLLM_PROJECT_DIR),
because the hook runs inside the read-only store.
"""
import json
import os
import sys


def log_path():
    path = os.environ.get("OLLM_AUDIT_LOG")
    if not path:
        data = os.environ.get("OLLM_EXTENSION_DATA") or os.path.join(".ollm", "data", "audit")
        path = os.path.join(data, "audit.jsonl")
    if not os.path.isabs(path):
        path = os.path.join(os.environ.get("OLLM_PROJECT_DIR") or os.getcwd(), path)
    return path


def append(path, msg):
    meta = msg.get("metadata") or {}
    data = msg.get("data") or {}
    entry = {
        "time": meta.get("timestamp"),
        "session": meta.get("sessionId"),
        "event": msg.get("event"),
        "tool": data.get("tool_name"),
        "args": data.get("args"),
    }
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry, sort_keys=True) + "\n")


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    path = log_path()
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except json.JSONDecodeError as e:
            print("audit: skipping a line that is not JSON: %s" % e, file=sys.stderr)
            continue
        kind = msg.get("type")
        if kind == "hello":
            send({"type": "hello"})
        elif kind == "shutdown":
            break
        elif "id" in msg:
            try:
                append(path, msg)
            except OSError as e:
                # Not failClosed: the call goes on, and the failure is logged.
                print("audit: cannot write %s: %s" % (path, e), file=sys.stderr)
            send({"id": msg["id"]})


if __name__ == "__main__":
    main()
