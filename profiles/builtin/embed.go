package builtin

import "embed"

// FS holds the builtin profile files.
//
//go:embed *.cue
var FS embed.FS
