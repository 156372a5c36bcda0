package hooks

import "golang.org/x/sys/unix"

// sandboxedPath is the program of a command sandbox.Wrap rewrote: the
// sandbox sets its limits itself, before the exec.
const sandboxedPath = "/proc/self/exe"

// limitProcess lowers an unsandboxed hook's RLIMIT_DATA and RLIMIT_FSIZE
// just after it started (0: leaves one). It cannot be set before the exec
// from Go: a process may allocate or write in the few microseconds before.
func limitProcess(pid int, data, fsize int64) {
	for _, l := range []struct {
		res int
		max int64
	}{{unix.RLIMIT_DATA, data}, {unix.RLIMIT_FSIZE, fsize}} {
		if l.max <= 0 {
			continue
		}
		var old unix.Rlimit
		if unix.Prlimit(pid, l.res, nil, &old) != nil {
			continue
		}
		r := old
		if r.Cur == unix.RLIM_INFINITY || r.Cur > uint64(l.max) {
			r.Cur = uint64(l.max)
		}
		if r.Max == unix.RLIM_INFINITY || r.Max > uint64(l.max) {
			r.Max = uint64(l.max)
		}
		_ = unix.Prlimit(pid, l.res, &r, nil)
	}
}
