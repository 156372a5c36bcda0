// Package sandbox runs the processes ollm starts for the model, hooks and
// MCP servers under a kernel-enforced policy: what they may read, write
// and whether they may use the network. On Linux it uses Landlock, applied
// in a re-exec of ollm itself between fork and the target's exec (a C
// constructor, trampoline_linux.c, that runs before the Go runtime), plus a
// user and mount namespace that makes the files deciding what ollm trusts
// read-only and, for full network isolation, a network namespace of its
// own. The ollm process itself is never restricted.
//
// Policies are pure data (policy.go); Wrap rewrites an exec.Cmd to run
// under one. Imports: the standard library, x/sys/unix and schema.
package sandbox
