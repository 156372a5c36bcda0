//go:build !linux && !darwin

package store

import "io/fs"

// sysStat is what a fingerprint takes from the platform's stat beyond
// fs.FileInfo. Elsewhere there is no ctime or inode: the fingerprint is
// paths, sizes, modes and mtimes only (docs/notes/resolver.md).
type sysStat struct {
	ctime           int64 // ns
	ino, dev, nlink uint64
}

func statOf(fs.FileInfo) sysStat { return sysStat{} }
