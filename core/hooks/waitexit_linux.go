package hooks

import (
	"errors"

	"golang.org/x/sys/unix"
)

// waitExit closes the returned channel when pid has exited, leaving it
// unreaped (WNOWAIT) for exec.Cmd.Wait.
func waitExit(pid int) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, unix.EINTR) {
				return
			}
		}
	}()
	return ch
}
