// Command greeter-go is the greeter extension written with the Go package
// github.com/ollm/ollm/sdk/hook: four slash commands (one per action of
// the extension protocol), a notification when the session starts and a
// custom event on /ship. Build it with `go build -o greeter .` in this
// directory (inside the ollm module) and declare it as a persistent hook.
package main

import (
	"context"
	"log"
	"os"

	"github.com/ollm/ollm/sdk/hook"
)

func main() {
	h := hook.New()
	h.Command("hello", "ask the model to greet you", func(ctx context.Context, args string) hook.CommandResponse {
		if args == "" {
			args = "me"
		}
		return hook.Prompt("Greet " + args + " very briefly.")
	})
	h.Command("sig", "insert a signature into the editor", func(ctx context.Context, args string) hook.CommandResponse {
		return hook.Insert("-- sent with ollm")
	})
	h.Command("about", "show what this extension does", func(ctx context.Context, args string) hook.CommandResponse {
		return hook.Display("greeter: /hello /sig /about /ship")
	})
	h.Command("ship", "raise the custom event 'ship'", func(ctx context.Context, args string) hook.CommandResponse {
		if args == "" {
			return hook.Error("usage: /ship ENV")
		}
		_ = h.Emit("ship", map[string]any{"env": args})
		_ = h.Notify("success", "ship "+args+" requested")
		return hook.Noop()
	})
	h.On("session_start", func(ctx context.Context, in hook.Input) hook.Output {
		_ = h.Notify("info", "greeter ready: try /hello")
		return hook.Allow()
	})
	if err := h.Run(os.Stdin, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
