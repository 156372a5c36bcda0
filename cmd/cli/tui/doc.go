// Package tui is ollm's interactive session: a bubbletea (v1) program with
// a streamed-markdown conversation (glamour), tool calls as cards, a
// confirmation dialog with the final arguments and the diff of edits, the
// start-of-session approval of untrusted hooks and workspace MCP servers,
// slash commands and a status line.
//
// The model only knows the small Runtime interface below; events arrive as
// the message types in events.go, which mirror what core/agent publishes.
// An adapter (agent.go) turns agent events and bus requests into them, so
// the whole UI is testable with plain message sequences and no real loop.
//
// Core never imports this package.
package tui
