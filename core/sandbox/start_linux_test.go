package sandbox

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollm/ollm/schema"
)

// spawned wraps argv under the shell's default policy in the box and
// starts it with Start, failing unless Start spawned it itself.
func (b *box) spawned(t *testing.T, argv ...string) (*exec.Cmd, func() (*Process, error)) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = b.ws
	if err := Wrap(cmd, Resolve(schema.Sandbox{}, ShellDefault, b.env())); err != nil {
		t.Fatal(err)
	}
	return cmd, func() (*Process, error) {
		p, err := Start(cmd)
		if err == nil && !p.own {
			t.Fatal("Start did not spawn the sandboxed command itself")
		}
		return p, err
	}
}

// Start behaves as exec.Cmd does for what ollm's callers use: a reader
// as stdin, stdout and stderr apart or shared, extra descriptors, the
// exit status, the process id.
func TestStartIsExecCmd(t *testing.T) {
	b := newBox(t)
	cmd, start := b.spawned(t, "sh", "-c", `cat; echo to-err >&2; echo extra >&3; exit 3`)
	var out, errOut bytes.Buffer
	cmd.Stdin = strings.NewReader("from-stdin\n")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles = []*os.File{w}
	p, err := start()
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if cmd.Process == nil || cmd.Process.Pid != p.Pid() {
		t.Fatalf("cmd.Process %v, Pid %d", cmd.Process, p.Pid())
	}
	err = p.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("Wait: %v, state %v", err, cmd.ProcessState)
	}
	extra := make([]byte, 64)
	n, _ := r.Read(extra)
	if out.String() != "from-stdin\n" || errOut.String() != "to-err\n" || string(extra[:n]) != "extra\n" {
		t.Fatalf("stdout %q stderr %q fd 3 %q", out.String(), errOut.String(), extra[:n])
	}

	// One writer for both: one pipe, in order.
	cmd, start = b.spawned(t, "sh", "-c", `echo one; echo two >&2; echo three`)
	var both bytes.Buffer
	cmd.Stdout, cmd.Stderr = &both, &both
	if p, err = start(); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil || both.String() != "one\ntwo\nthree\n" {
		t.Fatalf("Wait %v, output %q", err, both.String())
	}
}

// The spawned child starts as a child of exec would: no signal blocked,
// none ignored that ollm does not ignore, and the default action for the
// signals ollm's runtime handles (a SIGTERM ends it).
func TestStartSignals(t *testing.T) {
	b := newBox(t)
	cmd, start := b.spawned(t, "sh", "-c", `while read -r k v; do case $k in SigBlk:) echo "SigBlk $v";; esac; done < /proc/$$/status; kill -TERM $$; echo survived`)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := start()
	if err != nil {
		t.Fatal(err)
	}
	err = p.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGTERM || strings.Contains(out.String(), "survived") {
		t.Fatalf("SIGTERM did not end it: %v %s", err, out.String())
	}
	if !strings.Contains(out.String(), "SigBlk 0000000000000000") {
		t.Errorf("signals blocked in the child: %s", out.String())
	}
}

// A descendant that keeps the output open does not hang Wait past
// WaitDelay, as with exec.Cmd.
func TestStartWaitDelay(t *testing.T) {
	b := newBox(t)
	cmd, start := b.spawned(t, "sh", "-c", `sleep 30 & echo started`)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.WaitDelay = 200 * time.Millisecond
	cmd.SysProcAttr.Setsid = true
	p, err := start()
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-p.Pid(), syscall.SIGKILL)
	if err := p.Wait(); !errors.Is(err, exec.ErrWaitDelay) {
		t.Fatalf("Wait: %v, want ErrWaitDelay", err)
	}
	if out.String() != "started\n" {
		t.Fatalf("output %q", out.String())
	}
}

// A policy step that fails stops the child before anything runs, with
// the trampoline's exit status and message, and ollm goes on: a data
// directory that is a link is refused.
func TestStartPolicyFailureStopsTheChild(t *testing.T) {
	b := newBox(t)
	marker := filepath.Join(b.ws, "ran")
	cmd := exec.Command("sh", "-c", "touch "+marker)
	cmd.Dir = b.ws
	p := Resolve(schema.Sandbox{}, ShellDefault, b.env())
	link := filepath.Join(b.ws, ".ollm", "data-link")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b.outside, link); err != nil {
		t.Fatal(err)
	}
	p.Data = append(p.Data, link)
	if err := Wrap(cmd, p); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	proc, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = proc.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 125 || !strings.Contains(out.String(), "ollm sandbox: data directory "+link) {
		t.Fatalf("Wait %v, output %q", err, out.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran although the policy failed")
	}
	// Each failure leaves no descriptor behind in ollm (the maker child
	// that shares ollm's table closes what it opened).
	before := openFDs(t)
	for range 5 {
		c := exec.Command("true")
		c.Dir = b.ws
		if err := Wrap(c, p); err != nil {
			t.Fatal(err)
		}
		if proc, err := Start(c); err == nil {
			_ = proc.Wait()
		}
	}
	// Fewer is fine: a finished process's pidfd may be closed meanwhile.
	if after := openFDs(t); after > before {
		t.Fatalf("%d descriptors open before five failing spawns, %d after", before, after)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// run starts argv under the shell's default policy in the box with
// Start and reports its output, whether it succeeded, and whether it ran
// in a view (mount namespace and ruleset) kept from an earlier spawn.
func (b *box) spawnRun(t *testing.T, argv ...string) (out string, ok, reused bool) {
	t.Helper()
	cmd, start := b.spawned(t, argv...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	p, err := start()
	if err != nil {
		t.Fatal(err)
	}
	err = p.Wait()
	return buf.String(), err == nil, p.reused
}

// A kept view is used again while nothing it was made from changed, and
// a trust file replaced by a rename (what git does to .git/config) makes
// a new one: in the old one the bind mount would protect the replaced
// inode and leave the new file writable.
func TestSpawnViewFollowsReplacedTrustFiles(t *testing.T) {
	b := newBox(t)
	git := exec.Command("git", "init", "-q", b.ws)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	write := []string{"sh", "-c", "echo '[core] fsmonitor = touch PWNED' >> .git/config"}
	if out, ok, _ := b.spawnRun(t, write...); ok {
		t.Fatalf(".git/config written: %s", out)
	}
	if out, ok, reused := b.spawnRun(t, write...); ok || !reused {
		t.Fatalf("second call: written %v, kept view used %v: %s", ok, reused, out)
	}
	// The user's git rewrites the file: a new inode by rename.
	config := filepath.Join(b.ws, ".git", "config")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config+".lock", data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(config+".lock", config); err != nil {
		t.Fatal(err)
	}
	out, ok, reused := b.spawnRun(t, write...)
	if ok {
		t.Fatalf(".git/config written after it was replaced: %s", out)
	}
	if reused {
		t.Fatal("the kept view was used after .git/config was replaced")
	}
	if after, _ := os.ReadFile(config); strings.Contains(string(after), "PWNED") {
		t.Fatalf(".git/config holds the planted line: %s", after)
	}
}

// A unix socket a program of the user's starts listening on after a view
// was made is covered too: the sockets are part of what decides a view.
func TestSpawnViewCoversSocketsBoundLater(t *testing.T) {
	b := newBox(t)
	if out, ok, _ := b.spawnRun(t, "true"); !ok {
		t.Fatalf("true: %s", out)
	}
	dir, err := os.MkdirTemp("", "ollm-agent-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	connect := []string{"python3", "-c", "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print('connected')", sock}
	out, ok, reused := b.spawnRun(t, connect...)
	if ok || strings.Contains(out, "connected") {
		t.Fatalf("connected to a socket outside the sandbox: %s", out)
	}
	if reused {
		t.Error("the kept view was used after a socket appeared")
	}
	select {
	case <-accepted:
		t.Fatal("the listener accepted a connection from the sandbox")
	case <-time.After(100 * time.Millisecond):
	}
}

// A mount made on the host after a view was made is seen by the next
// process: a change of ollm's mount table drops the kept views (their
// mount namespaces copied the table when they were made).
func TestSpawnViewFollowsMountChanges(t *testing.T) {
	if os.Getuid() != 0 {
		// A user and mount namespace of the test's own, where it may mount.
		cmd := exec.Command("unshare", "--user", "--map-root-user", "--mount", os.Args[0], "-test.run", "^TestSpawnViewFollowsMountChanges$", "-test.count=1", "-test.v")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestSpawnViewFollowsMountChanges") {
			t.Fatalf("in a namespace of its own: %v\n%s", err, out)
		}
		return
	}
	b := newBox(t)
	dir := filepath.Join(b.outside, "mnt")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, ok, _ := b.spawnRun(t, "ls", "-A", dir); !ok || out != "" {
		t.Fatalf("ls %s: %v %q", dir, ok, out)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Fatal(err)
	}
	defer syscall.Unmount(dir, syscall.MNT_DETACH)
	if err := os.WriteFile(filepath.Join(dir, "mounted"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, ok, reused := b.spawnRun(t, "ls", "-A", dir)
	if !ok || out != "mounted\n" || reused {
		t.Fatalf("after the mount: ls %v %q, kept view used %v", ok, out, reused)
	}
}

// A command without a directory runs in ollm's, and a relative one is
// taken from ollm's, as with exec.Cmd: joining the view's mount namespace
// moves a process to its root, so the directory is named whole.
func TestStartDirectory(t *testing.T) {
	b := newBox(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{"": wd, ".": wd, filepath.Base(b.root): b.root} {
		cmd, start := b.spawned(t, "pwd")
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout = &out
		p, err := start()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Wait(); err != nil || strings.TrimSpace(out.String()) != want {
			t.Errorf("Dir %q: pwd says %q (%v), want %q", dir, out.String(), err, want)
		}
	}
}

// A name given twice reaches the program once, with its last value, as
// with exec.Cmd: Wrap puts the private build caches after the caller's
// environment, and Go takes the first of two.
func TestStartEnvironmentLastValueWins(t *testing.T) {
	b := newBox(t)
	cmd, start := b.spawned(t, "cat", "/proc/self/environ") // exactly what it was given
	cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], "OLLM_TWICE=first", "OLLM_TWICE=last")
	// The policy stays the last entry, as Wrap leaves it.
	cmd.Env[len(cmd.Env)-3], cmd.Env[len(cmd.Env)-2], cmd.Env[len(cmd.Env)-1] = cmd.Env[len(cmd.Env)-2], cmd.Env[len(cmd.Env)-1], cmd.Env[len(cmd.Env)-3]
	var out bytes.Buffer
	cmd.Stdout = &out
	p, err := start()
	if err != nil {
		t.Fatal(err)
	}
	err = p.Wait()
	var twice []string
	for _, kv := range strings.Split(out.String(), "\x00") {
		if strings.HasPrefix(kv, "OLLM_TWICE=") {
			twice = append(twice, kv)
		}
	}
	if err != nil || len(twice) != 1 || twice[0] != "OLLM_TWICE=last" {
		t.Fatalf("%v: %q", err, twice)
	}
}

// The kept views are dropped when idle: their descriptors close (a
// view's mount namespace keeps alive what it saw mounted) and the next
// start makes a new one.
func TestSpawnViewsDropped(t *testing.T) {
	b := newBox(t)
	if out, ok, _ := b.spawnRun(t, "true"); !ok {
		t.Fatalf("true: %s", out)
	}
	if _, _, reused := b.spawnRun(t, "true"); !reused {
		t.Fatal("the view was not kept")
	}
	before := openFDs(t)
	dropViews()
	if after := openFDs(t); after > before-2 {
		t.Fatalf("%d descriptors before dropping the views, %d after", before, after)
	}
	if _, _, reused := b.spawnRun(t, "true"); reused {
		t.Fatal("a dropped view was used")
	}
}

// A sandboxed process has no capability, also as root of its user
// namespace and after executing other programs: it cannot chown a file in
// its own workspace or mount anything.
func TestSpawnNoCapabilities(t *testing.T) {
	b := newBox(t)
	owned := filepath.Join(b.ws, "notes.txt")
	if err := os.Mkdir(filepath.Join(b.ws, "mnt"), 0o755); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(owned)
	if err != nil {
		t.Fatal(err)
	}
	out, _, _ := b.spawnRun(t, "sh", "-c", "grep -E '^Cap(Inh|Prm|Eff|Amb)' /proc/self/status; "+
		"chown 12345:12345 notes.txt 2>/dev/null && echo CHOWNED; mount -t tmpfs none mnt 2>/dev/null && echo MOUNTED; "+
		"unshare -r sh -c 'mount -t tmpfs none mnt && echo NESTED-MOUNTED' 2>/dev/null; exit 0")
	for _, c := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
		if !strings.Contains(out, c+":\t0000000000000000") {
			t.Errorf("%s is not empty:\n%s", c, out)
		}
	}
	for _, m := range []string{"CHOWNED", "MOUNTED"} {
		if strings.Contains(out, m) {
			t.Errorf("the sandboxed process did it: %s\n%s", m, out)
		}
	}
	after, err := os.Stat(owned)
	if err != nil {
		t.Fatal(err)
	}
	if after.Sys().(*syscall.Stat_t).Uid != before.Sys().(*syscall.Stat_t).Uid {
		t.Errorf("notes.txt changed owner")
	}
	// A mount in a user namespace of its own lands in a namespace of its
	// own: the workspace outside stays as it is.
	if es, _ := os.ReadDir(filepath.Join(b.ws, "mnt")); len(es) != 0 {
		t.Errorf("mnt changed outside: %v", es)
	}
}

// A sandboxed process given no terminal runs without the seccomp filter
// (Landlock ABI 5 and later), so Landlock must refuse what the filter
// would: a console or terminal it opens by path takes no ioctl (TIOCSTI,
// TIOCLINUX, even TCGETS), while a pty of its own still works.
func TestSpawnTerminalIoctlsWithoutSeccomp(t *testing.T) {
	b := newBox(t)
	script := `
import errno, fcntl, os, termios
def attempt(name, fn):
    try:
        fn()
        print(name + ": done")
    except (OSError, termios.error) as e:
        print(name + ": " + errno.errorcode[e.args[0]])
for dev in ["/dev/tty1", "/dev/console", "/dev/tty0"]:
    try:
        fd = os.open(dev, os.O_RDONLY | os.O_NOCTTY)
    except OSError as e:
        print(dev + " open: " + errno.errorcode[e.errno])
        continue
    attempt(dev + " TIOCSTI", lambda: fcntl.ioctl(fd, termios.TIOCSTI, b"x"))
    attempt(dev + " TIOCLINUX", lambda: fcntl.ioctl(fd, 0x541C, b"\x0b" + bytes(8)))
    attempt(dev + " TCGETS", lambda: termios.tcgetattr(fd))
def own():
    m, s = os.openpty()
    termios.tcgetattr(s)
    os.write(m, b"x\n")
    return os.read(s, 2)
attempt("own-pty", own)
`
	out, _, _ := b.spawnRun(t, "python3", "-c", script)
	if strings.Contains(strings.ReplaceAll(out, "own-pty: done", ""), ": done") {
		t.Errorf("a terminal opened by path took an ioctl:\n%s", out)
	}
	if !strings.Contains(out, "own-pty: done") {
		t.Errorf("a pty of its own does not work:\n%s", out)
	}
	t.Logf("\n%s", out)
}
