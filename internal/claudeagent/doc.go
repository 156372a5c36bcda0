// Package claudeagent reads Claude Code's subagent files (agents/*.md:
// YAML front matter with name, description, tools and model; the body is
// the system prompt) into ollm's schema.Subagent, mapping Claude's tool
// names to ollm's and naming, one warning per field, what ollm cannot
// honour. It reads leniently: real agent files carry unquoted
// descriptions full of colons that a strict YAML parser refuses.
//
// Imports: the standard library and schema.
package claudeagent
