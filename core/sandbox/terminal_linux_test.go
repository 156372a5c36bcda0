package sandbox_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/sandbox/sandboxtest"
	"github.com/ollm/ollm/schema"
)

// inject is what a hostile command does to the user's terminal: push a
// line into its input (TIOCSTI) through stdin and through /dev/tty, and
// ask the console for its selection (TIOCLINUX). Results go to argv[1].
const inject = `
import errno, fcntl, os, sys, termios
out = open(sys.argv[1], 'w')
line = b'echo OLLM-' + b'INJECTED\n'
def sti(fd):
    for c in line:
        fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
def attempt(name, fn):
    try:
        fn()
        out.write(name + ': done\n')
    except OSError as e:
        out.write(name + ': ' + errno.errorcode[e.errno] + '\n')
attempt('sti-stdin', lambda: sti(0))
def tty():
    fd = os.open('/dev/tty', os.O_RDWR)
    sti(fd)
attempt('devtty', tty)
attempt('tioclinux', lambda: fcntl.ioctl(0, 0x541C, b'\x02' + bytes(8)))
def by_path():  # the user's terminal by its name, as a command whose output is a pipe would
    fd = os.open(sys.argv[2], os.O_WRONLY | os.O_NOCTTY)
    os.write(fd, b'OLLM-' + b'WRITTEN')
attempt('open-pts', by_path)
def own_pty():  # a program making a pseudo-terminal of its own still can
    m, s = os.openpty()
    os.write(m, b'x\n')
    return os.read(s, 2)
attempt('own-pty', own_pty)
def resession():  # a child in a session of its own, which may take a terminal again
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            sti(os.open('/dev/tty', os.O_RDWR))
            os.write(w, b'done')
        except OSError as e:
            os.write(w, errno.errorcode[e.errno].encode())
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    got = os.read(r, 64).decode()
    if got != 'done':
        raise OSError(getattr(errno, got), got)
attempt('setsid-devtty', resession)
out.close()
`

// TestTerminalHelper is ollm running in the user's terminal: started by
// TestNoTerminal as a session leader whose controlling terminal is a
// pseudo-terminal, it runs inject (sandboxed, or not for the control)
// with the terminal as stdin, stdout and stderr, as `ollm sandbox -- CMD`
// does, then writes how many bytes wait in the terminal's input to
// _OLLM_TTY_RESULT. It does nothing in a normal test run.
func TestTerminalHelper(t *testing.T) {
	result := os.Getenv("_OLLM_TTY_RESULT")
	if result == "" {
		return
	}
	argv := []string{"python3", "-c", inject, result + ".attempts", os.Getenv("_OLLM_TTY_NAME")}
	cmd := exec.Command(argv[0], argv[1:]...)
	b := sandboxtest.Box{WS: os.Getenv("_OLLM_TTY_WS"), Home: os.Getenv("_OLLM_TTY_HOME"), Tmp: os.Getenv("_OLLM_TTY_WS")}
	p := sandbox.Resolve(schema.Sandbox{}, sandbox.ShellDefault, b.Env())
	switch os.Getenv("_OLLM_TTY_SANDBOX") {
	case "wrap":
		cmd.Dir = b.WS
		if err := sandbox.Wrap(cmd, p); err != nil {
			t.Fatal(err)
		}
	case "external": // as an editor's terminal starts it: a process group of its own
		l, err := sandbox.External(argv, b.WS, os.Environ(), p)
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(l.Path, l.Args...)
		cmd.Env, cmd.Dir = l.Env, l.Dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	run := cmd.Run
	if os.Getenv("_OLLM_TTY_SANDBOX") == "wrap" {
		run = func() error { return sandbox.RunForTest(cmd) }
	}
	if err := run(); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(0, unix.TIOCINQ)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(result, []byte(strconv.Itoa(n)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// openPTY opens a pseudo-terminal pair by hand: /dev/ptmx and its slave.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// terminalRun runs TestTerminalHelper in a new session on a new
// pseudo-terminal and returns the attempts inject wrote, the bytes waiting
// in the terminal's input afterwards and what the terminal showed.
func terminalRun(t *testing.T, b *sandboxtest.Box, how string) (attempts string, pending int, shown string) {
	t.Helper()
	master, slave := openPTY(t)
	result := filepath.Join(b.WS, "tty-result")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestTerminalHelper$")
	cmd.Env = append(os.Environ(), "_OLLM_TTY_RESULT="+result, "_OLLM_TTY_WS="+b.WS, "_OLLM_TTY_HOME="+b.Home, "_OLLM_TTY_NAME="+slave.Name())
	cmd.Env = append(cmd.Env, "_OLLM_TTY_SANDBOX="+how)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&screen, master); close(done) }()
	err := cmd.Run()
	slave.Close()
	<-done // the master reads EIO once no one holds the slave
	if err != nil {
		t.Fatalf("terminal helper: %v\n%s", err, screen.String())
	}
	a, err := os.ReadFile(result + ".attempts")
	if err != nil {
		t.Fatal(err)
	}
	n, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	pending, _ = strconv.Atoi(string(n))
	return string(a), pending, screen.String()
}

// A sandboxed command cannot type into the user's terminal: it has no
// controlling terminal (/dev/tty: ENXIO), TIOCSTI on the terminal it was
// given as stdin injects nothing, TIOCLINUX is refused, and the terminal
// cannot be opened by its name (/dev/pts/N), while a pty of its own works. The terminal
// is a real pseudo-terminal; its input queue is read after the command.
func TestNoTerminal(t *testing.T) {
	b := sandboxtest.New(t)
	// wrap: as ollm starts the shell tool's commands, hooks and servers;
	// external: as an editor's terminal starts a command (ACP), in the
	// terminal's session as a process group of its own.
	for _, how := range []string{"wrap", "external"} {
		attempts, pending, shown := terminalRun(t, b, how)
		t.Logf("%s:\n%s", how, attempts)
		if pending != 0 || strings.Contains(shown, "OLLM-INJECTED") || strings.Contains(shown, "OLLM-WRITTEN") {
			t.Errorf("%s: a sandboxed command injected %d bytes into the terminal's input; the terminal showed %q", how, pending, shown)
		}
		for _, want := range []string{"sti-stdin: EPERM", "devtty: ENXIO", "tioclinux: EPERM", "open-pts: ENOENT", "own-pty: done", "setsid-devtty: E"} {
			if !strings.Contains(attempts, want) {
				t.Errorf("%s: want %q in the attempts:\n%s", how, want, attempts)
			}
		}
	}
	// Unsandboxed, the same program types into the terminal where the
	// kernel lets it: root, or dev.tty.legacy_tiocsti=1.
	legacy, _ := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti")
	if os.Getuid() == 0 || strings.TrimSpace(string(legacy)) == "1" {
		attempts, pending, _ := terminalRun(t, b, "")
		if pending == 0 {
			t.Errorf("the unsandboxed control injected nothing; the test cannot see an injection:\n%s", attempts)
		}
	}
}

// A sandboxed command cannot signal ollm (or any process outside its
// sandbox): kill(ollm's pid, SIGUSR1) fails and nothing arrives. The
// unsandboxed control arrives.
func TestNoSignalsOut(t *testing.T) {
	b := sandboxtest.New(t)
	got := make(chan os.Signal, 8)
	signal.Notify(got, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(got)
	kill := "import os, signal, sys\ntry:\n    os.kill(int(sys.argv[1]), signal.SIGUSR1); print('sent')\nexcept OSError as e:\n    print('refused', e)\n"
	pid := strconv.Itoa(os.Getpid())
	out, err := run(t, b, schema.Sandbox{}, nil, "python3", "-c", kill, pid)
	if err != nil || !strings.Contains(out, "refused") {
		t.Errorf("sandboxed kill of ollm's pid: %v %s", err, out)
	}
	on := true
	if out, err := run(t, b, schema.Sandbox{Network: &on}, nil, "python3", "-c", kill, pid); err != nil || !strings.Contains(out, "refused") {
		t.Errorf("sandboxed kill with network: %v %s", err, out)
	}
	// A marker after the attempts: a SIGUSR1 sent before it is delivered
	// first (the lower number, and Go hands signals over in number order).
	syscall.Kill(os.Getpid(), syscall.SIGUSR2)
	for s := range got {
		if s == syscall.SIGUSR1 {
			t.Error("a sandboxed process signalled ollm")
		}
		if s == syscall.SIGUSR2 {
			break
		}
	}
	// The control: the same program unsandboxed reaches us.
	c := exec.Command("python3", "-c", kill, pid)
	if out, err := c.CombinedOutput(); err != nil || !strings.Contains(string(out), "sent") {
		t.Fatalf("unsandboxed kill: %v %s", err, out)
	}
	select {
	case s := <-got:
		if s != syscall.SIGUSR1 {
			t.Errorf("got %v", s)
		}
	case <-time.After(30 * time.Second):
		t.Error("the unsandboxed control's SIGUSR1 did not arrive; the test cannot see a signal")
	}
}

// Where Landlock has no signal scope (before ABI 6) a seccomp filter
// keeps signals in: forced here in place of the scope. The probes use
// signal 0 (permission only), so a filter that failed would signal
// nothing; a real SIGUSR1 to ollm must not arrive either. What stays
// possible is what build tools do: signal their own process group and a
// child by its pid.
func TestSignalsBySeccompWithoutTheScope(t *testing.T) {
	b := sandboxtest.New(t)
	defer sandbox.SignalsBySeccompForTest()()
	got := make(chan os.Signal, 8)
	signal.Notify(got, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(got)
	probe := `import os, signal, subprocess, sys
ollm = int(sys.argv[1])
def try_(name, fn):
    try:
        fn(); print(name, "sent")
    except OSError as e:
        print(name, "refused", e.errno)
try_("ollm", lambda: os.kill(ollm, 0))
try_("ollm-usr1", lambda: os.kill(ollm, signal.SIGUSR1))
try_("everyone", lambda: os.kill(-1, 0))
try_("ollm-group", lambda: os.kill(-os.getpgid(ollm), 0))
try_("pidfd-ollm", lambda: os.pidfd_open(ollm))
try_("own-group", lambda: os.kill(0, 0))
try_("self", lambda: os.kill(os.getpid(), 0))
child = subprocess.Popen(["sleep", "30"])
try_("child", lambda: os.kill(child.pid, signal.SIGTERM))
print("child exit", child.wait())
`
	pid := strconv.Itoa(os.Getpid())
	out, err := run(t, b, schema.Sandbox{}, nil, "python3", "-c", probe, pid)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"ollm refused 1", "ollm-usr1 refused 1", "everyone refused 1", "ollm-group refused 1", "pidfd-ollm refused 1",
		"own-group sent", "self sent", "child sent", "child exit -15"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	syscall.Kill(os.Getpid(), syscall.SIGUSR2)
	for s := range got {
		if s == syscall.SIGUSR1 {
			t.Error("a sandboxed process signalled ollm")
		}
		if s == syscall.SIGUSR2 {
			break
		}
	}
}
