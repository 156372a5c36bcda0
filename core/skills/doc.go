// Package skills keeps the named prompt templates a session can invoke:
// skills declared in the profile, in extension manifests, in folders
// (<dir>/<skill>/SKILL.md with name and description front matter, from the
// workspace .ollm/skills/, $OLLM_HOME/skills/ and an extension's skills/)
// and MCP prompts added through Add.
//
// A skill's bare name is used while it is unique. When two sources declare
// the same name, extension skills are reachable as "extension:skill" and
// the bare name resolves only when exactly one non-extension skill has it.
// Rendering substitutes {placeholder}s and fails, naming every missing
// value, when one is not given.
//
// Imports: the standard library and schema. The package never prints.
package skills
