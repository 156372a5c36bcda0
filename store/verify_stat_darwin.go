//go:build darwin

package store

import (
	"io/fs"
	"syscall"
)

// sysStat is what a fingerprint takes from the platform's stat beyond
// fs.FileInfo.
type sysStat struct {
	ctime           int64 // ns
	ino, dev, nlink uint64
}

func statOf(fi fs.FileInfo) sysStat {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return sysStat{}
	}
	return sysStat{ctime: st.Ctimespec.Nano(), ino: st.Ino, dev: uint64(st.Dev), nlink: uint64(st.Nlink)}
}
