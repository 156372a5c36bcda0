package sandbox

import (
	"bytes"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readEvents reads every event queued on the inotify descriptor fd
// without blocking and calls fn for each (name is "" for the watched
// file or directory itself, and for IN_Q_OVERFLOW).
func readEvents(fd int, fn func(wd int32, mask uint32, name []byte)) {
	var buf [16384]byte
	for {
		n, err := unix.Read(fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			fn(ev.Wd, ev.Mask, name)
		}
	}
}
