package tools

import (
	"strings"

	"golang.org/x/sys/unix"
)

// openEach opens rel (a slash path below dirfd without ".." or ".";
// "." alone is dirfd itself) one component at a time with O_NOFOLLOW,
// so no symlink on the way is followed: one that appears fails with
// ELOOP or ENOTDIR. It is openBeneath where openat2 is missing.
func openEach(dirfd int, rel string, flags int) (int, error) {
	parts := strings.Split(rel, "/")
	fd := dirfd
	for _, part := range parts[:len(parts)-1] {
		if part == ".." || part == "." || part == "" {
			return -1, unix.EINVAL
		}
		next, err := openatRetry(fd, part, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		if fd != dirfd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	last := parts[len(parts)-1]
	if last == ".." || last == "" || (last == "." && len(parts) > 1) {
		if fd != dirfd {
			unix.Close(fd)
		}
		return -1, unix.EINVAL
	}
	out, err := openatRetry(fd, last, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if fd != dirfd {
		unix.Close(fd)
	}
	return out, err
}

func openatRetry(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
