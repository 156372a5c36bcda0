// Package claudeperm reads Claude Code's permission rules (the strings of
// settings.json permissions.allow/deny/ask and of a command's or skill's
// allowed-tools: Bash(npm run test:*), Read(./secrets/**), Edit,
// WebFetch(domain:example.com), mcp__server__tool) and turns each into
// an ollm policy rule on ollm's tools, so one policy engine judges them.
//
// Imports: the standard library and schema.
package claudeperm
