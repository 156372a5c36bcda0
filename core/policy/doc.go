// Package policy decides whether a tool call may run: allow, deny or ask.
//
// A Policy is compiled once from the profile's rules (regular expressions
// and globs are checked and compiled then, so a bad pattern is an error that
// names the rule) and answers Decide, a pure function of the tool's facts
// and the call's final arguments. Nothing here does I/O or evaluates CUE:
// the CUE schema checks rules when the profile loads and plain Go evaluates
// them at call time.
//
// Shell-like tools get special care: their command line is parsed with
// mvdan.cc/sh/v3/syntax, every simple command in it (after &&, ||, ;, |,
// inside $(...), backticks, subshells, process substitutions, redirections
// and wrappers such as `bash -c`, `xargs`, `find -exec`, `sudo`, `trap`,
// and text fed to a shell on its input: `echo ... | sh`, `sh <<EOF`) is
// judged on its own, and the call passes only if every part does. What
// cannot be known statically (a program name built from a variable, `eval
// "$x"`, `curl ... | sh`, LD_PRELOAD) cannot be proven safe, so it is
// asked about. Parsing is a convenience, not a sandbox: docs/policy.md
// lists its known limits, docs/notes/policy.md the full semantics and the
// measurements.
//
// Imports: the standard library, core/tool, schema, mvdan.cc/sh/v3/syntax
// and github.com/bmatcuk/doublestar/v4.
package policy
