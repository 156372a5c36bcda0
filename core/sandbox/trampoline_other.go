//go:build !linux || !cgo

package sandbox

// Without cgo (or off Linux) there is no trampoline: Probe reports the
// sandbox unavailable and sandbox.required decides.
const trampolineLinked = false
