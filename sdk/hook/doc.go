// Package hook is for writing ollm hooks and extension processes in Go:
// a one-shot hook (Once: read one event on stdin, answer on stdout) or a
// persistent one (New, handlers, Run: one process for the session that answers
// events, owns slash commands, pushes notifications and raises custom
// events). It speaks the protocol docs/hooks.md describes and imports
// nothing but the standard library, so an extension can vendor it; no
// package of ollm imports it (the tests build examples/greeter-go with it).
//
//	h := hook.New()
//	h.Command("hello", "say hi", func(ctx context.Context, args string) hook.CommandResponse {
//		return hook.Prompt("Greet " + args + " briefly.")
//	})
//	h.On("before_tool", func(ctx context.Context, in hook.Input) hook.Output {
//		if in.Data["tool_name"] == "shell" {
//			return hook.Block("no shell here")
//		}
//		return hook.Allow()
//	})
//	if err := h.Run(os.Stdin, os.Stdout); err != nil {
//		log.Fatal(err)
//	}
package hook
