// Package resolver turns a profile into a lock and a generation. It
// computes a new ollm.lock from (profile, old lock, sources) without
// changing its inputs, like OpenTofu's EnsureProviderVersions: git sources
// through go-git (with the in-process file transport, so no git binary is
// needed) and local directories. Every fetched tree is hashed (h1, see
// store.HashDir) and checked against the lock before it is moved into the
// content-addressed store; a mismatch is a *store.ChecksumError. MCP
// servers launched through npx, pnpm dlx or uvx with an unpinned package
// get their exact version pinned (PinCommand rewrites their args at run
// time). Apply records an immutable generation that LoadCurrent gives back
// without CUE while the inputs are unchanged.
//
// Progress is reported through Events; the package never prints. Lock
// diffing (Diff, Stale) is pure.
//
// Imports: the standard library, schema, store, profiles, cue (embedded
// data), profiles/builtin, go-git v5.
package resolver
