// Package builtin embeds the builtin profile, the lowest layer of every
// resolved profile.
//
// Imports: the standard library only.
package builtin

import "embed"

// FS holds the builtin profile files.
//
//go:embed *.cue
var FS embed.FS
