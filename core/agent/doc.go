// Package agent is the loop that turns a user prompt into model replies and
// tool calls: it emits every hook event at its point, sends each tool call
// through the one gate (before_tool rewrites, the policy on the final
// namespaced name and arguments, a confirmation over core/bus, execution,
// after_tool), tracks context use and compacts the conversation before it
// overflows, and appends every message to a JSONL transcript.
//
// Core never prints: everything the loop does is published as an Event
// through Config.OnEvent, which the TUI and `ollm run --output-format
// stream-json` consume. Confirmations travel over the bus, so a TUI answers
// them by subscribing to the bus as an answerer; with nobody to answer, an
// ask resolves to a deny naming the rule that asked, and the model sees the
// refusal as the tool's result.
//
// Imports: the standard library, schema, store, core/llm, core/hooks,
// core/policy, core/bus, core/tool and core/skills. Never cmd or the TUI.
package agent
