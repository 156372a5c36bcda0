//go:build linux && cgo

package sandbox

import "C" // links trampoline_linux.c, whose constructor runs in every binary importing this package

const trampolineLinked = true
