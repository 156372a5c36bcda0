"""ollm_hook: a single-file helper for ollm hooks and extension processes
in Python (3.8+, standard library only). Copy it into your extension.

The Go equivalent is the package github.com/ollm/ollm/sdk/hook; both speak
the protocol docs/hooks.md describes.

A persistent hook (manifest: "persistent": true) is one process for the
session: it answers events, owns slash commands, pushes notifications and
raises custom events:

    from ollm_hook import Hook, prompt, block, allow

    h = Hook()

    @h.command("hello", "say hi")
    def hello(args):
        return prompt("Greet %s briefly." % (args or "me"))

    @h.on("before_tool")
    def guard(inp):
        if inp["data"].get("tool_name") == "shell":
            return block("no shell here")
        return allow()

    h.run()

A one-shot hook answers one event: once(handler).
"""
import json
import sys
import threading

__all__ = ["Hook", "once", "allow", "block", "message",
           "prompt", "insert", "display", "noop", "error"]


def allow():
    """Let the operation go on."""
    return {}


def block(reason):
    """Stop the operation with reason."""
    return {"continue": False, "reason": reason}


def message(text):
    """Go on and add text to the conversation."""
    return {"systemMessage": text}


def prompt(text):
    """Command action: submit text as the user's next prompt."""
    return {"action": "prompt", "prompt": text}


def insert(text):
    """Command action: put text into the editor without submitting it."""
    return {"action": "insert", "insert": text}


def display(text):
    """Command action: show text as a note (no model call)."""
    return {"action": "display", "display": text}


def noop():
    """Command action: change nothing."""
    return {"action": "noop"}


def error(msg):
    """Command answer: show msg as an error line."""
    return {"action": "noop", "error": msg}


class Hook:
    """A persistent hook: handlers by event, commands by name."""

    def __init__(self, stdin=None, stdout=None):
        self._in = stdin or sys.stdin
        self._out = stdout or sys.stdout
        self._lock = threading.Lock()
        self._events = {}
        self._commands = {}

    def on(self, event):
        """Decorator: handle event (canonical name, or "*" for any other)."""
        def wrap(fn):
            self._events[event] = fn
            return fn
        return wrap

    def command(self, name, description=""):
        """Decorator: register /name; the handler gets the arguments string."""
        def wrap(fn):
            self._commands[name] = (description, fn)
            return fn
        return wrap

    def notify(self, level, msg):
        """Push a notification (info, success, warn, error), any time."""
        self._send({"type": "notify", "level": level, "message": msg})

    def emit(self, event_name, data=None):
        """Raise the custom event event_name; ollm sets its source."""
        self._send({"type": "emit", "eventName": event_name, "data": data})

    def _send(self, obj):
        line = json.dumps(obj) + "\n"
        with self._lock:
            self._out.write(line)
            self._out.flush()

    def _hello(self):
        cmds = [{"name": n, "description": d} for n, (d, _) in self._commands.items()]
        self._send({"type": "hello", "commands": cmds})

    def _invoke(self, msg):
        entry = self._commands.get(msg.get("name"))
        try:
            resp = entry[1](msg.get("args", "")) if entry else error("no handler for /%s" % msg.get("name"))
        except Exception as e:  # the user sees the error line
            resp = error("%s: %s" % (type(e).__name__, e))
        out = {"type": "command_response", "id": msg["id"]}
        out.update(resp or noop())
        self._send(out)

    def _answer(self, msg):
        fn = self._events.get(msg.get("event")) or self._events.get("*")
        try:
            out = dict(fn(msg) or {}) if fn else {}
        except Exception as e:  # log to stderr (the extension's log) and go on
            print("hook error: %s: %s" % (type(e).__name__, e), file=sys.stderr)
            out = {}
        out["id"] = msg["id"]
        self._send(out)

    def run(self):
        """Speak the persistent protocol until shutdown or end of input."""
        for line in self._in:
            if not line.strip():
                continue
            msg = json.loads(line)
            kind = msg.get("type")
            if kind == "hello":
                self._hello()
            elif kind == "shutdown":
                return
            elif kind == "command_invoked":
                threading.Thread(target=self._invoke, args=(msg,), daemon=True).start()
            else:
                threading.Thread(target=self._answer, args=(msg,), daemon=True).start()


def once(handler, stdin=None, stdout=None):
    """Answer one event as a one-shot hook: read stdin, write the answer."""
    msg = json.load(stdin or sys.stdin)
    json.dump(handler(msg) or {}, stdout or sys.stdout)
