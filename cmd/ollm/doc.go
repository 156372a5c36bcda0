// Command ollm is a terminal agent for local models, configured by one
// CUE-validated profile. See the cli package for the commands.
//
// Imports: cmd/cli only; main stays one line.
package main
