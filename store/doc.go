// Package store owns every byte ollm keeps on disk: the layout under
// OLLM_HOME (default ~/.ollm) and the workspace's .ollm directory, atomic
// file writes, advisory file locks and JSON state files. Other packages ask
// store for paths and for writes; none of them writes state files itself.
//
// Imports: the standard library, schema, github.com/natefinch/atomic and
// github.com/gofrs/flock.
package store
