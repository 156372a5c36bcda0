//go:build !linux

package hooks

const sandboxedPath = "/proc/self/exe"

// limitProcess sets nothing here: prlimit is Linux's.
func limitProcess(pid int, data, fsize int64) {}
