// Package schema holds the plain Go types of everything ollm configures:
// the profile and its sections, extension manifests, the lock file and the
// resolved profile that the runtime loads.
//
// The CUE definitions in package cue are the source of truth for validation;
// these types are what the rest of the program decodes into. A test in this
// package keeps the two in step by round-tripping every field.
//
// Imports: the standard library only.
package schema
