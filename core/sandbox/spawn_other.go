//go:build !linux || !cgo

package sandbox

import "errors"

const spawnLinked = false

func spawn(spec, dir string, argv, envp []string, fds []int) (int, bool, error) {
	return 0, false, errors.New("sandbox: no in-process spawn on this platform")
}

func dropViews() {}
