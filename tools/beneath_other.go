//go:build unix && !linux

package tools

// openBeneath opens rel below dirfd without following any symlink; see
// beneath_linux.go. Without openat2 it goes a component at a time.
func openBeneath(dirfd int, rel string, flags int) (int, error) {
	return openEach(dirfd, rel, flags)
}
