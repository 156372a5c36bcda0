package tools

import (
	"context"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/ollm/ollm/core/tool"
)

// bashCommand prepares bash -c command in its own process group, so a
// timeout or kill reaches every process it started.
func bashCommand(command, dir string, env []string) *exec.Cmd {
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second // children holding the pipes do not hang Wait
	return cmd
}

// killGroup kills cmd's whole process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// output collects a command's output in order, keeps stderr apart too,
// streams every write to a callback and reports activity for the idle
// timer. It keeps at most limit bytes of each buffer (the start).
type output struct {
	mu       sync.Mutex
	combined []byte
	stderr   []byte
	dropped  int // bytes not kept
	// droppedRunes and droppedLines count what was not kept: its
	// characters (UTF-8 lead bytes) and newlines
	droppedRunes, droppedLines int
	lastDropped                byte
	limit                      int
	onWrite                    func(string)
}

func (o *output) add(p []byte, isErr bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	kept := min(max(o.limit-len(o.combined), 0), len(p))
	o.combined = append(o.combined, p[:kept]...)
	o.dropped += len(p) - kept
	if kept < len(p) {
		o.lastDropped = p[len(p)-1]
	}
	for _, b := range p[kept:] {
		if b&0xC0 != 0x80 {
			o.droppedRunes++
		}
		if b == '\n' {
			o.droppedLines++
		}
	}
	if isErr && len(o.stderr) < o.limit {
		o.stderr = append(o.stderr, p[:min(o.limit-len(o.stderr), len(p))]...)
	}
	if o.onWrite != nil {
		o.onWrite(string(p))
	}
}

// notKept counts the output past the limit for the truncation note: its
// characters, and the lines it adds to the kept text's (a kept last line
// that goes on in the rest is counted once, a rest without a final
// newline ends one more line). Called with o.mu held.
func (o *output) notKept() tool.Truncation {
	if o.dropped == 0 {
		return tool.Truncation{}
	}
	lines := o.droppedLines
	if n := len(o.combined); n > 0 && o.combined[n-1] != '\n' && lines > 0 {
		lines--
	}
	if o.lastDropped != '\n' {
		lines++
	}
	return tool.Truncation{Chars: o.droppedRunes, Lines: lines}
}

type streamWriter struct {
	o     *output
	isErr bool
}

func (w streamWriter) Write(p []byte) (int, error) {
	w.o.add(p, w.isErr)
	return len(p), nil
}

// watchdog kills the process group when ctx ends or when no output came
// for idle (0 = never). It returns a function that stops it and reports
// whether the idle timer fired.
func watchdog(ctx context.Context, cmd *exec.Cmd, idle time.Duration, activity <-chan struct{}) (stop func() (idled bool)) {
	done := make(chan struct{})
	var idled bool
	var wg sync.WaitGroup
	wg.Go(func() {
		var timer <-chan time.Time
		var t *time.Timer
		if idle > 0 {
			t = time.NewTimer(idle)
			defer t.Stop()
			timer = t.C
		}
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				killGroup(cmd)
				return
			case <-activity:
				if t != nil {
					t.Reset(idle)
				}
			case <-timer:
				idled = true
				killGroup(cmd)
				return
			}
		}
	})
	return func() bool {
		close(done)
		wg.Wait()
		return idled
	}
}
