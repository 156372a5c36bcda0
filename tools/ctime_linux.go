package tools

import (
	"syscall"
	"time"
)

// changedSince reports whether path's inode changed at or after t (or
// cannot be looked at, which counts as changed).
func changedSince(path string, t time.Time) bool {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return true
	}
	return !time.Unix(st.Ctim.Unix()).Before(t)
}
