package sandbox

import (
	"bytes"
	"errors"
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
}
