// Package builtin embeds the builtin profile, the lowest layer of every
// resolved profile.
//
// Imports: the standard library only.
package builtin
