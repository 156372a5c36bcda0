// Package tool defines what a tool is to ollm: a name, a JSON schema for its
// parameters and a kind, from which validated invocations are built. Built-in
// tools (package tools) and MCP tools (package core/mcp) implement the same
// interfaces, so the model and the policy engine see no difference.
//
// Besides the interfaces it holds the parts every tool shares: parameter
// validation against the tool's schema (compiled once per tool), the
// registry the runtime exposes to the model, output truncation with an
// indicator of what was cut, and Spec/Call, a small base that keeps each
// tool's file down to its own logic.
//
// Imports: the standard library, schema and
// github.com/santhosh-tekuri/jsonschema/v6. It never prints.
package tool
