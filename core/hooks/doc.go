// Package hooks runs the programs that users and extensions attach to
// lifecycle events. A hook reads one JSON object on stdin and may answer
// with one on stdout to block the operation, add a system message or
// rewrite the event's data (tool arguments, tool result, prompt, messages,
// the user-visible response, the available tools).
//
// The runtime makes one call per event, (*Engine).Emit, which plans the
// hooks registered for the event (registration order, tool-name matchers),
// checks each one's trust, runs it in its own process group with a timeout,
// translates the dialect (ollm, claude, gemini) both ways and folds the
// outputs into an Outcome. Folding is a pure function (fold.go) with table
// tests; processes live in runner.go and persistent.go only.
//
// Trust (trust.go) decides from the hook's scope - the discovery root it
// came from - whether it runs freely or needs an approval recorded in
// trusted-hooks.json, keyed by a stable id and a content hash. Workspace
// profiles are approved as a whole (profiles/gate.go, `ollm trust`). Every
// hook process runs under its sandbox (Options.Sandbox, core/sandbox).
//
// Imports: the standard library, schema, store, core/sandbox, core/tool,
// golang.org/x/sys/unix and golang.org/x/mod/sumdb/dirhash. Never cmd or the TUI: core reports
// through return values, callbacks and log/slog and never prints.
package hooks
