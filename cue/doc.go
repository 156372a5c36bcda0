// Package cue embeds ollm's CUE schema: the profile, the extension manifest
// and the Gemini CLI manifest it imports. It is data only; package profiles
// compiles it (the only package that imports the CUE evaluator).
//
// Imports: the standard library only.
package cue

import "embed"

// FS holds every .cue file of the schema.
//
//go:embed *.cue
var FS embed.FS

// Files lists the schema files in FS in a stable order.
var Files = []string{"profile.cue", "manifest.cue"}
