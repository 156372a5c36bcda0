//go:build !linux && !darwin

package cli

// flushInput is not available here: type-ahead is not discarded.
func flushInput(int) error { return nil }
