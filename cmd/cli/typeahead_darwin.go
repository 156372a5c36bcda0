package cli

import "golang.org/x/sys/unix"

// flushInput discards what the terminal on fd received and nobody read
// yet (tcflush(fd, TCIFLUSH): TIOCFLUSH with FREAD).
func flushInput(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, 1 /* FREAD */) }
