package tools

import (
	"context"
	"os/exec"
	"sync"
	"syscall"
	"time"
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
	dropped  int
	limit    int
	onWrite  func(string)
}

func (o *output) add(p []byte, isErr bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if room := o.limit - len(o.combined); room > 0 {
		o.combined = append(o.combined, p[:min(room, len(p))]...)
		o.dropped += len(p) - min(room, len(p))
	} else {
		o.dropped += len(p)
	}
	if isErr && len(o.stderr) < o.limit {
		o.stderr = append(o.stderr, p[:min(o.limit-len(o.stderr), len(p))]...)
	}
	if o.onWrite != nil {
		o.onWrite(string(p))
	}
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
