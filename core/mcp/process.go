package mcp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ollm/ollm/core/sandbox"
)

// Grace periods of the shutdown sequence: close stdin and wait (the
// default; Options.StopGrace sets it), then SIGTERM the process group and
// wait, then SIGKILL it.
const (
	DefaultStopGrace = time.Second
	termGrace        = 2 * time.Second
)

// process is a running stdio server: its own process group, so that a
// wrapper (npx, sh) and everything it starts are stopped together.
type process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// stdout is the read end of our own pipe, not cmd.StdoutPipe: Wait
	// closes the latter as soon as the process exits, which can cut off
	// output still in the pipe and race the exit status (see watch in
	// conn.go). Ours stays open until everything written has been read.
	stdout *os.File
	done   chan struct{} // closed when the process has exited
	err    error         // the exit status, set before done closes
	// signalled is the last signal ollm sent the group, 0 for none; set
	// before the signal is sent, so an exit it caused finds it.
	signalled atomic.Int32
}

// startProcess starts command with args, env and dir; stderr goes to
// stderr (the server's log file). confine, when set, rewrites the command
// before it starts (the sandbox); an error keeps it from starting.
func startProcess(command string, args, env []string, dir string, stderr io.Writer, confine func(*exec.Cmd) error) (*process, error) {
	cmd := exec.Command(command, args...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.Stderr = stderr
	// Setpgid before confine, which adds to SysProcAttr; with cmd.Err set
	// (no such program) Start says what is missing.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if confine != nil && cmd.Err == nil {
		if err := confine(cmd); err != nil {
			return nil, err
		}
	}
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	in, stdin, err := os.Pipe()
	if err != nil {
		_, _ = stdout.Close(), w.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = in, w
	proc, err := sandbox.Start(cmd)
	_, _ = w.Close(), in.Close() // the child holds its copies; EOF comes when it (and its children) close them
	if err != nil {
		_, _ = stdout.Close(), stdin.Close()
		return nil, startError(command, err)
	}
	p := &process{cmd: cmd, stdin: stdin, stdout: stdout, done: make(chan struct{})}
	go func() {
		p.err = proc.Wait()
		close(p.done)
	}()
	return p, nil
}

// startError says what to fix when a server cannot be started.
func startError(command string, err error) error {
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("%s not found in PATH; install it or give the full path in the server's command", command)
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s does not exist; check the server's command and cwd", command)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("%s is not executable; check its permissions", command)
	default:
		return err
	}
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitDescription says how the process ended, for error messages.
func (p *process) exitDescription() string {
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return "exited with status 0"
	case errors.As(p.err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return p.signalDescription(ws.Signal())
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	default:
		return p.err.Error()
	}
}

// signalDescription names the signal that killed the process and who
// sent it: "was killed by SIGKILL (killed), sent by ollm when it stopped
// the server", or, for a signal ollm did not send, what it usually means.
func (p *process) signalDescription(sig syscall.Signal) string {
	name := unix.SignalName(sig)
	if name == "" {
		name = fmt.Sprintf("signal %d", int(sig))
	}
	desc := fmt.Sprintf("was killed by %s (%s)", name, sig)
	if int32(sig) == p.signalled.Load() {
		return desc + ", sent by ollm when it stopped the server"
	}
	switch sig {
	case syscall.SIGKILL:
		return desc + ", not sent by ollm: the kernel's out-of-memory killer or another process (see dmesg)"
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE, syscall.SIGABRT:
		return desc + ": the server crashed"
	case syscall.SIGSYS:
		return desc + ": a system call the sandbox forbids, or a crash"
	default:
		return desc + ", not sent by ollm"
	}
}

// stop ends the process: close stdin and wait, SIGTERM the group and wait,
// SIGKILL the group. It returns once the process has been reaped. The
// group is signalled even when the leader has already exited, so that
// children it left behind go too.
//
// It reports whether the process exited within the grace, on its own,
// after its stdin closed.
func (p *process) stop(grace time.Duration) (exitedOnEOF bool) {
	_ = p.stdin.Close()
	exitedOnEOF = p.waitFor(grace)
	if !exitedOnEOF {
		p.signalGroup(syscall.SIGTERM)
		if !p.waitFor(termGrace) {
			p.signalGroup(syscall.SIGKILL)
			<-p.done
		}
	}
	p.signalGroup(syscall.SIGKILL) // stragglers in the group, if any
	_ = p.stdout.Close()           // a process outside the group may still hold the pipe
	return exitedOnEOF
}

func (p *process) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

func (p *process) signalGroup(sig syscall.Signal) {
	if p.cmd.Process != nil {
		if !p.exited() {
			p.signalled.Store(int32(sig))
		}
		_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	}
}
