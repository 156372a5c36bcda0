package tools

import (
	"sync"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel below dirfd in one openat2 call that refuses to
// leave dirfd and to follow any symlink (RESOLVE_BENEATH,
// RESOLVE_NO_SYMLINKS): as cheap as open(2) by name, and a directory
// swapped for a symlink mid-walk fails with ELOOP. Kernels before 5.6,
// and sandboxes that forbid openat2, get openEach.
func openBeneath(dirfd int, rel string, flags int) (int, error) {
	if !haveOpenat2() {
		return openEach(dirfd, rel, flags)
	}
	how := &unix.OpenHow{
		Flags:   uint64(flags | unix.O_NOFOLLOW | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(dirfd, rel, how)
		if err != unix.EINTR && err != unix.EAGAIN {
			return fd, err
		}
	}
}

var haveOpenat2 = sync.OnceValue(func() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, ".", &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS,
	})
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
})
