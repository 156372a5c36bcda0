// Package bus carries confirmation requests from the tool gate to whoever
// can answer them (the TUI) and the answers back.
//
// A request gets a correlation id and waits, independently of any other
// pending request, until it is answered, times out or its context is
// cancelled. Subscribers receive requests and resolutions as events on
// their own unbounded queue, so a slow subscriber never blocks the agent.
// With no subscriber able to answer (a headless run) a request resolves at
// once to deny, with a message naming the rule that asked.
//
// Imports: the standard library and core/policy.
package bus
