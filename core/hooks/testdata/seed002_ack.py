import json, os, sys
# A seed 002 extension: it says hello first, then records the host's
# lines until it has seen a hello_ack, and registers a command.
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()
emit({"type": "hello", "name": "acker", "version": "1.0.0", "capabilities": ["commands"]})
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello_ack":
        with open(os.environ["ACK_LOG"], "w") as f:
            f.write(line)
        emit({"type": "register_command", "name": "acked", "description": "registered after the ack"})
    if msg.get("type") == "shutdown":
        emit({"type": "shutdown_ack"})
        break
