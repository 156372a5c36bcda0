// Package tool defines what a tool is to ollm: a name, a JSON schema for its
// parameters and a kind, from which validated invocations are built. Built-in
// tools (package tools) and MCP tools (package core/mcp) implement the same
// interfaces, so the model and the policy engine see no difference.
//
// Imports: the standard library, schema and a JSON Schema validator.
package tool
