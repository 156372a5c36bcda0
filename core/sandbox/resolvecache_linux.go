package sandbox

import (
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/ollm/ollm/schema"
)

// The resolution cache. A hook's policy was resolved at each of its runs
// (0.3-0.45 ms: the home allow-list walk and the secret locations'
// lstats) because a policy resolved earlier can be wrong now: a .git
// made since, a secret linked into an allow-listed directory. A policy
// kept until a time-out would be wrong for that long; this one is kept
// until the filesystem it was made from changes. Each resolution records
// the paths it consulted (fsProbe); the cache walks them the way the
// kernel resolves them and watches, with inotify, every directory a name
// was looked up in (for that name), every directory listed (any name),
// and every file read; /proc/self/mountinfo is polled for the mount
// table. Before each use the inotify descriptor is read without
// blocking: the kernel queues an event when the change is made, so every
// change completed before the call is seen, and any that matters drops
// every kept policy. What cannot be watched (inotify missing or out of
// watches, a directory it may not watch) is resolved every time.
type resolveCache struct {
	mu      sync.Mutex
	fd      int              // inotify; -1 until needed
	mounts  int              // /proc/self/mountinfo; -1 until needed
	byWd    map[int32]*watch // what each watch descriptor stands for
	dirs    map[string]*watch
	files   map[string]bool
	entries map[string]Policy
	// gen counts the drops: a number vouch gives stays the same while
	// nothing watched changes. vouched are the specs it gave it for.
	gen     uint64
	vouched map[string]bool
	// fills and drops count, for tests: resolutions made to be kept,
	// and times everything kept was dropped.
	fills, drops int
}

type watch struct {
	path  string // the first path it was added for
	names map[string]bool
	any   bool // a file, or a directory listed: every event counts
}

var rcache = resolveCache{fd: -1, mounts: -1, gen: 1}

// dropCause, when set (tests), is told why everything kept was dropped:
// "mounts", "overflow", or the directory and name an event concerned.
var dropCause func(string)

// maxKept bounds the policies kept (a session has a handful: the shell's,
// the hooks', each extension's); past it everything is dropped.
const maxKept = 64

const (
	dirMask  = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW
	fileMask = unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW
)

func resolveCached(s, def schema.Sandbox, env Env) Policy {
	key := resolveKey(s, def, env)
	c := &rcache
	c.mu.Lock()
	defer c.mu.Unlock()
	c.check()
	if p, ok := c.entries[key]; ok {
		return clonePolicy(p)
	}
	p, ok := c.fill(s, def, env)
	if ok {
		if len(c.entries) >= maxKept {
			c.drop()
		}
		if c.entries == nil {
			c.entries = map[string]Policy{}
		}
		c.entries[key] = p
		return clonePolicy(p)
	}
	return p
}

// fill resolves with the paths it consults watched before the result
// that is kept is made: a change after the watches are in place is either
// in that result or an event the next use sees.
func (c *resolveCache) fill(s, def schema.Sandbox, env Env) (Policy, bool) {
	pr := &fsProbe{}
	p := resolve(pr, s, def, env)
	for range 3 {
		if !c.watch(pr.watchSet()) {
			return p, false
		}
		if c.check() {
			// Something changed meanwhile: the watches went with
			// everything else; start again from a fresh probe.
			pr = &fsProbe{}
			p = resolve(pr, s, def, env)
			continue
		}
		pr = &fsProbe{}
		p = resolve(pr, s, def, env)
		if c.covers(pr.watchSet()) {
			c.fills++
			return p, true
		}
	}
	return p, false
}

// open makes the inotify descriptor and opens the mount table.
func (c *resolveCache) open() bool {
	if c.mounts < 0 {
		fd, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		c.mounts = fd
		c.mountsChanged() // the first poll reports the table as new
	}
	if c.fd < 0 {
		fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
		if err != nil {
			return false
		}
		c.fd = fd
		c.byWd, c.dirs, c.files = map[int32]*watch{}, map[string]*watch{}, map[string]bool{}
	}
	return true
}

// watch adds the watches w needs; false when one cannot be added.
func (c *resolveCache) watch(w watchSet) bool {
	if !c.open() {
		return false
	}
	for dir, names := range w.dirs {
		x := c.dirs[dir]
		if x == nil {
			wd, err := unix.InotifyAddWatch(c.fd, dir, dirMask)
			if err != nil {
				return false
			}
			x = c.byWd[int32(wd)]
			if x == nil {
				x = &watch{path: dir, names: map[string]bool{}}
				c.byWd[int32(wd)] = x
			}
			c.dirs[dir] = x
		}
		for n := range names {
			if n == "" {
				x.any = true
			} else {
				x.names[n] = true
			}
		}
	}
	for f := range w.files {
		if c.files[f] {
			continue
		}
		wd, err := unix.InotifyAddWatch(c.fd, f, fileMask)
		if err != nil {
			return false
		}
		x := c.byWd[int32(wd)]
		if x == nil {
			x = &watch{path: f, names: map[string]bool{}}
			c.byWd[int32(wd)] = x
		}
		x.any = true
		c.files[f] = true
	}
	return true
}

// covers reports whether the watches in place cover w.
func (c *resolveCache) covers(w watchSet) bool {
	for dir, names := range w.dirs {
		x := c.dirs[dir]
		if x == nil {
			return false
		}
		for n := range names {
			if !x.any && (n == "" || !x.names[n]) {
				return false
			}
		}
	}
	for f := range w.files {
		if !c.files[f] {
			return false
		}
	}
	return true
}

// check reads what happened since the last call and drops everything
// kept when any of it matters; it reports whether it dropped.
func (c *resolveCache) check() bool {
	mounts, events := c.pending()
	changed := mounts
	if changed && dropCause != nil {
		dropCause("mounts")
	}
	if events && !changed {
		changed = c.events()
	}
	if changed {
		c.drop()
	}
	return changed
}

// pending asks, in one poll, whether the mount table changed and whether
// inotify has events to read: the read itself (several times the poll's
// cost) is left out when nothing is queued, which is nearly always.
func (c *resolveCache) pending() (mounts, events bool) {
	var fds [2]unix.PollFd
	n := 0
	if c.mounts >= 0 {
		fds[n] = unix.PollFd{Fd: int32(c.mounts), Events: unix.POLLPRI}
		n++
	}
	if c.fd >= 0 {
		fds[n] = unix.PollFd{Fd: int32(c.fd), Events: unix.POLLIN}
		n++
	}
	if n == 0 {
		return false, false
	}
	if _, err := unix.Poll(fds[:n], 0); err != nil {
		return c.mounts >= 0, c.fd >= 0 // cannot tell: look
	}
	i := 0
	if c.mounts >= 0 {
		mounts = fds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0
		i = 1
	}
	if c.fd >= 0 {
		events = fds[i].Revents != 0
	}
	return mounts, events
}

func (c *resolveCache) mountsChanged() bool {
	fds := []unix.PollFd{{Fd: int32(c.mounts), Events: unix.POLLPRI}}
	n, err := unix.Poll(fds, 0)
	if err != nil {
		return true
	}
	return n > 0 && fds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0
}

// events drains the inotify queue; true when an event concerns a name
// looked up, a directory listed or a file read (or the queue overflowed).
func (c *resolveCache) events() bool {
	changed := false
	readEvents(c.fd, func(wd int32, mask uint32, name []byte) {
		x := c.byWd[wd]
		if mask&unix.IN_Q_OVERFLOW != 0 || x == nil || x.any || len(name) == 0 || x.names[string(name)] {
			changed = true
			if dropCause != nil {
				dropCause(c.describe(wd, mask, string(name)))
			}
		}
	})
	return changed
}

// drop forgets every kept policy and every watch.
func (c *resolveCache) drop() {
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
	c.byWd, c.dirs, c.files = nil, nil, nil
	if len(c.entries) > 0 {
		c.drops++
	}
	c.entries, c.vouched = nil, nil
	c.gen++
}

// vouch is for ollm_spawn, which keeps views keyed by a spec's text and
// the stat of every path it names (~60 stats a start): it returns a
// number that stays the same while none of those paths changes, so a
// start with the same spec and number may skip the stats; 0 when it
// cannot say. Each named path is walked as for a resolution (every name
// looked up, through every link) and those lookups watched: a path
// renamed, replaced, created or removed, or a link on the way changed,
// is an event, and any event drops the number.
func vouch(spec string) uint64 {
	c := &rcache
	c.mu.Lock()
	defer c.mu.Unlock()
	c.check()
	if c.vouched[spec] {
		return c.gen
	}
	w := watchSet{dirs: map[string]map[string]bool{}, files: map[string]bool{}}
	for line := range strings.SplitSeq(spec, "\n") {
		if len(line) > 2 && line[1] == '\t' && strings.IndexByte("RWPDHGiu", line[0]) >= 0 {
			w.walk(line[2:])
		}
	}
	if !c.watch(w) || c.check() {
		return 0
	}
	if c.vouched == nil {
		c.vouched = map[string]bool{}
	}
	if len(c.vouched) >= maxKept {
		clear(c.vouched)
	}
	c.vouched[spec] = true
	return c.gen
}

// describe names an event for dropCause.
func (c *resolveCache) describe(wd int32, mask uint32, name string) string {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		return "overflow"
	}
	if x := c.byWd[wd]; x != nil {
		return filepath.Join(x.path, name)
	}
	return name
}
