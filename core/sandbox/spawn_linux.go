//go:build linux && cgo

package sandbox

/*
#include <stdlib.h>
int ollm_spawn(const char *spec_text, const char *dir, char **argv, char **envp, const int *fds, int nfds, int *errnum, int *reused);
void ollm_drop_views(void);
*/
import "C"

import (
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// spawn starts argv under spec in one clone, without the trampoline's
// re-exec (ollm_spawn in trampoline_linux.c): the child applies the
// policy and executes the program itself. fds[i] becomes descriptor i.
func spawn(spec, dir string, argv, envp []string, fds []int) (pid int, reused bool, err error) {
	if g := vouch(spec); g != 0 {
		spec += "V\t" + strconv.FormatUint(g, 10) + "\n"
	}
	cspec := C.CString(spec)
	defer C.free(unsafe.Pointer(cspec))
	cdir := C.CString(dir)
	defer C.free(unsafe.Pointer(cdir))
	cargv := cStrings(argv)
	defer freeCStrings(cargv)
	cenvp := cStrings(envp)
	defer freeCStrings(cenvp)
	cfds := (*C.int)(C.malloc(C.size_t(len(fds)+1) * C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(cfds))
	fdSlice := unsafe.Slice(cfds, len(fds)+1)
	for i, fd := range fds {
		fdSlice[i] = C.int(fd)
	}
	var errnum, again C.int
	// As os.StartProcess does: no descriptor made without close-on-exec
	// by another goroutine leaks into the child meanwhile.
	syscall.ForkLock.Lock()
	cpid := C.ollm_spawn(cspec, cdir, cargv, cenvp, cfds, C.int(len(fds)), &errnum, &again)
	syscall.ForkLock.Unlock()
	if cpid < 0 {
		return 0, false, syscall.Errno(errnum)
	}
	keepViews()
	return int(cpid), again != 0, nil
}

// viewIdle is how long the kept views outlive the last sandboxed start.
const viewIdle = time.Minute

var (
	idleMu sync.Mutex
	idle   *time.Timer
)

// keepViews (re)arms the timer that drops the views after viewIdle.
func keepViews() {
	idleMu.Lock()
	defer idleMu.Unlock()
	if idle == nil {
		idle = time.AfterFunc(viewIdle, dropViews)
		return
	}
	idle.Reset(viewIdle)
}

// dropViews closes every kept view; the next start makes its own again.
func dropViews() {
	syscall.ForkLock.Lock()
	C.ollm_drop_views()
	syscall.ForkLock.Unlock()
}

const spawnLinked = true

// cStrings is a NULL-terminated C array of copies of ss.
func cStrings(ss []string) **C.char {
	arr := (**C.char)(C.malloc(C.size_t(len(ss)+1) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	s := unsafe.Slice(arr, len(ss)+1)
	for i, v := range ss {
		s[i] = C.CString(v)
	}
	s[len(ss)] = nil
	return arr
}

func freeCStrings(arr **C.char) {
	for _, p := range unsafe.Slice(arr, 1<<20) {
		if p == nil {
			break
		}
		C.free(unsafe.Pointer(p))
	}
	C.free(unsafe.Pointer(arr))
}
