package sandbox

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Process is a command started by Start. Wait it with Process.Wait, never
// with the command's own Wait: a sandboxed command Start spawned itself
// was not started by exec.Cmd.
type Process struct {
	cmd    *exec.Cmd
	own    bool // spawned here, not by cmd.Start
	reused bool // in a mount namespace and ruleset kept from an earlier spawn
	proc   *os.Process
	copies sync.WaitGroup
	ends   []*os.File // ollm's ends of the pipes, closed after the copies
}

// Start starts cmd, as cmd.Start does. A command Wrap sandboxed is
// spawned in one step when the machine allows it: the policy is applied
// between clone and exec in a child of this process (ollm_spawn), not by
// re-executing ollm (the trampoline), which saves a second execve and the
// dynamic loader's work per sandboxed process. Everything else, and a
// sandboxed command this cannot spawn (no shared namespaces, a
// SysProcAttr it does not know), is started by cmd.Start.
//
// What it supports of exec.Cmd: Path, Args, Env, Dir, Stdin (nil, a
// file or any reader), Stdout and Stderr (nil, a file or any writer),
// ExtraFiles, WaitDelay; cmd.Process is set, and Process.Wait sets
// cmd.ProcessState.
func Start(cmd *exec.Cmd) (*Process, error) {
	spec, ok := spawnable(cmd)
	if !ok {
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return &Process{cmd: cmd, proc: cmd.Process}, nil
	}
	p := &Process{cmd: cmd, own: true}
	var child []*os.File // our copies of the child's ends, closed once it has its own
	closeChild := func() {
		for _, f := range child {
			f.Close()
		}
		child = nil
	}
	defer closeChild()
	fail := func(err error) (*Process, error) {
		closeChild()
		for _, f := range p.ends {
			f.Close()
		}
		p.copies.Wait() // nothing writes to the caller's writers after Start returned
		return nil, err
	}
	devNull := func(flag int) (*os.File, error) {
		f, err := os.OpenFile(os.DevNull, flag, 0)
		if err == nil {
			child = append(child, f)
		}
		return f, err
	}
	var files []*os.File
	// stdin
	switch r := cmd.Stdin.(type) {
	case nil:
		f, err := devNull(os.O_RDONLY)
		if err != nil {
			return fail(err)
		}
		files = append(files, f)
	case *os.File:
		files = append(files, r)
	default:
		pr, pw, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		child, p.ends = append(child, pr), append(p.ends, pw)
		files = append(files, pr)
		p.copies.Go(func() {
			_, _ = io.Copy(pw, r) // a reader the program did not read to the end: as exec, no error
			pw.Close()
		})
	}
	// stdout, then stderr (the same pipe when both are the same writer)
	var outPipe *os.File
	for i, w := range []io.Writer{cmd.Stdout, cmd.Stderr} {
		switch f := w.(type) {
		case nil:
			nf, err := devNull(os.O_WRONLY)
			if err != nil {
				return fail(err)
			}
			files = append(files, nf)
			continue
		case *os.File:
			files = append(files, f)
			continue
		}
		if i == 1 && outPipe != nil && sameWriter(cmd.Stdout, cmd.Stderr) {
			files = append(files, outPipe)
			continue
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		child, p.ends = append(child, pw), append(p.ends, pr)
		files = append(files, pw)
		if i == 0 {
			outPipe = pw
		}
		p.copies.Go(func() {
			_, _ = io.Copy(w, pr)
			pr.Close()
		})
	}
	files = append(files, cmd.ExtraFiles...)
	fds := make([]int, len(files))
	for i, f := range files {
		if f == nil {
			return fail(errors.New("sandbox: Start: a nil ExtraFiles entry"))
		}
		fds[i] = int(f.Fd())
	}
	env := lastValues(withoutKey(cmd.Env))
	argv := cmd.Args
	if len(argv) == 0 {
		argv = []string{cmd.Path}
	}
	// The child joins a prepared mount namespace, which moves it to that
	// namespace's root: its directory is named whole, ollm's own for none.
	dir, err := filepath.Abs(cmd.Dir)
	if err != nil {
		return fail(err)
	}
	pid, reused, err := spawn(spec, dir, argv, env, fds)
	runtime.KeepAlive(files) // open until the child has its copies
	if err != nil {
		return fail(&os.PathError{Op: "fork/exec", Path: specProgram(spec), Err: err})
	}
	proc, err := os.FindProcess(pid)
	if err != nil {
		return fail(err)
	}
	p.proc, p.reused, cmd.Process = proc, reused, proc
	return p, nil
}

// Pid is the process id.
func (p *Process) Pid() int { return p.proc.Pid }

// Wait waits for the process to exit and for its output to be copied, as
// exec.Cmd.Wait does: an *exec.ExitError for a status other than 0, and
// with WaitDelay set, exec.ErrWaitDelay when a descendant kept the output
// open that long after the process exited.
func (p *Process) Wait() error {
	if !p.own {
		return p.cmd.Wait()
	}
	state, err := p.proc.Wait()
	if err == nil && !state.Success() {
		err = &exec.ExitError{ProcessState: state}
	}
	p.cmd.ProcessState = state
	done := make(chan struct{})
	go func() {
		p.copies.Wait()
		close(done)
	}()
	if d := p.cmd.WaitDelay; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			for _, f := range p.ends {
				f.Close()
			}
			<-done
			if err == nil {
				err = exec.ErrWaitDelay
			}
		}
	} else {
		<-done
	}
	return err
}

// lastValues keeps one entry per name, the last, where it first stood: as
// exec.Cmd does, and as Wrap relies on (the private caches' variables
// after the caller's). A program reading its environment may take the
// first of two (Go does), so none may reach it.
func lastValues(env []string) []string {
	last := make(map[string]int, len(env))
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		last[name] = i
	}
	out := make([]string, 0, len(last))
	seen := make(map[string]bool, len(last))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, env[last[name]])
	}
	return out
}

// sameWriter reports whether two writers are the same value, as exec
// decides whether stdout and stderr share a pipe.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false // not comparable
		}
	}()
	return a == b
}

// specOf is the policy Wrap put into cmd's environment.
func specOf(cmd *exec.Cmd) (string, bool) {
	for i := len(cmd.Env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(cmd.Env[i], envKey+"="); ok {
			return v, true
		}
	}
	return "", false
}

// specProgram is the program a spec executes (its X line).
func specProgram(spec string) string {
	for _, line := range strings.Split(spec, "\n") {
		if v, ok := strings.CutPrefix(line, "X\t"); ok {
			return v
		}
	}
	return ""
}
