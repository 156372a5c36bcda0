//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package hooks

import (
	"errors"

	"golang.org/x/sys/unix"
)

// waitExit closes the returned channel when pid has exited, leaving it
// unreaped for exec.Cmd.Wait: these kernels have no waitid(WNOWAIT), so a
// kqueue reports the exit (NOTE_EXIT) without reaping.
func waitExit(pid int) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		kq, err := unix.Kqueue()
		if err != nil {
			return
		}
		defer unix.Close(kq)
		var ev unix.Kevent_t
		unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
		ev.Fflags = unix.NOTE_EXIT
		out := make([]unix.Kevent_t, 1)
		for {
			_, err := unix.Kevent(kq, []unix.Kevent_t{ev}, out, nil)
			if !errors.Is(err, unix.EINTR) {
				return // the exit, or ESRCH: it has already exited
			}
		}
	}()
	return ch
}
