// Package store owns every byte ollm keeps on disk: the layout under
// OLLM_HOME (default ~/.ollm) and the workspace's .ollm directory, atomic
// file writes, advisory file locks and JSON state files. Other packages ask
// store for paths and for writes; none of them writes state files itself.
//
// It also holds the content-addressed extension store (cas.go: verify the
// h1 hash, then rename into place read-only), generations and trust files.
//
// Imports: the standard library, schema, github.com/natefinch/atomic,
// github.com/gofrs/flock and golang.org/x/mod/sumdb/dirhash.
package store
