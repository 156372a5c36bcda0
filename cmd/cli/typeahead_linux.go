package cli

import "golang.org/x/sys/unix"

// flushInput discards what the terminal on fd received and nobody read
// yet (tcflush(fd, TCIFLUSH)).
func flushInput(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
