// Package profiles loads ollm's configuration: it unifies the builtin, user
// and workspace profiles through the CUE schema in one instance, discovers
// and validates extension manifests, and returns a schema.Resolved that the
// rest of the program uses without touching CUE.
//
// It is the only package that imports cuelang.org/go. Every error it
// returns names file:line:col (both positions for a conflict between
// layers). An invalid manifest is skipped and reported as a Problem while
// the other extensions load.
//
// Imports: the standard library, cue, profiles/builtin, schema, store,
// cuelang.org/go.
package profiles
