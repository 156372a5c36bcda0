#!/usr/bin/env python3
"""greeter: an extension process written with ollm_hook.py. It owns four
slash commands, one per action of the extension protocol, pushes a
notification when the session starts and raises a custom event on /ship."""
from ollm_hook import Hook, prompt, insert, display, noop, error, allow

h = Hook()


@h.command("hello", "ask the model to greet you")
def hello(args):
    return prompt("Greet %s very briefly." % (args or "me"))


@h.command("sig", "insert a signature into the editor")
def sig(args):
    return insert("-- sent with ollm")


@h.command("about", "show what this extension does")
def about(args):
    return display("greeter: /hello /sig /about /ship")


@h.command("ship", "raise the custom event 'ship'")
def ship(args):
    if not args:
        return error("usage: /ship ENV")
    h.emit("ship", {"env": args})
    h.notify("success", "ship %s requested" % args)
    return noop()


@h.on("session_start")
def started(inp):
    h.notify("info", "greeter ready: try /hello")
    return allow()


h.run()
