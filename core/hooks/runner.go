package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/schema"
)

// Runner limits.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxOutput = 1 << 20 // stdout bytes kept per hook run
	KillGrace        = time.Second
	stderrKeep       = 64 << 10 // stderr bytes kept for exit-2 reasons
	stderrLogMax     = 1 << 20  // stderr bytes written to the log per run
	drainDelay       = 200 * time.Millisecond
)

// runSpec is one process to run.
type runSpec struct {
	Path      string
	Args      []string
	Dir       string
	Env       []string
	Stdin     []byte
	Timeout   time.Duration
	Grace     time.Duration
	MaxStdout int
	Log       io.Writer // receives stderr; may be nil
	// Confine, when set, rewrites the command before it starts (the
	// sandbox); an error keeps it from starting.
	Confine func(*exec.Cmd) error
	// MaxData and MaxFileSize bound the process (bytes; 0: no bound):
	// the sandbox sets them before its exec; an unsandboxed process gets
	// them right after its start (prlimit).
	MaxData, MaxFileSize int64
}

// commandLine turns a hook definition into a program and arguments. A
// command with no args that holds spaces or shell syntax runs through
// /bin/sh -c, as Claude Code's command strings do; a relative program path
// is taken relative to the hook's directory.
func commandLine(h *Hook, dir string) (string, []string) {
	c := h.Def.Command
	if len(h.Def.Args) == 0 && strings.ContainsAny(c, " \t\n|&;<>()$`\\\"'*?[#~=%") {
		return "/bin/sh", []string{"-c", c}
	}
	if strings.ContainsRune(c, '/') && !filepath.IsAbs(c) && dir != "" {
		c = filepath.Join(dir, c)
	}
	return c, h.Def.Args
}

// runProcess runs s in its own process group and always leaves no member
// of that group alive: on timeout or cancellation the group gets SIGTERM,
// then SIGKILL after the grace period; when the leader exits, whatever it
// left behind in the group is killed. A descendant holding stdout open
// cannot hang the caller: reads stop shortly after the group is gone.
func runProcess(ctx context.Context, s runSpec) RunOutput {
	out := RunOutput{ExitCode: -1}
	p, err := openPipes()
	if err != nil {
		out.StartErr = err
		return out
	}
	cmd := exec.Command(s.Path, s.Args...)
	cmd.Dir, cmd.Env = s.Dir, s.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.inR, p.outW, p.errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // before Confine, which adds to it
	if s.Confine != nil {
		err = s.Confine(cmd)
	}
	var proc *sandbox.Process
	if err == nil {
		proc, err = sandbox.Start(cmd)
	}
	p.closeChildEnds()
	if err != nil {
		p.closeParentEnds()
		out.StartErr = err
		return out
	}
	if cmd.Path != sandboxedPath {
		limitProcess(cmd.Process.Pid, s.MaxData, s.MaxFileSize)
	}
	go func() { _, _ = p.inW.Write(s.Stdin); _ = p.inW.Close() }()
	stdout := readCapped(p.outR, s.MaxStdout, nil, 0)
	stderr := readCapped(p.errR, stderrKeep, s.Log, stderrLogMax)
	out.TimedOut, out.Err = supervise(ctx, cmd.Process.Pid, s.Timeout, s.Grace)
	_ = proc.Wait()
	out.ExitCode = cmd.ProcessState.ExitCode()
	p.finish()
	so, se := <-stdout, <-stderr
	out.Stdout, out.Truncated, out.Stderr = so.buf, so.truncated, se.buf
	return out
}

// supervise waits for the leader pid to exit (without reaping it, so its
// pid cannot be reused while the group is signalled), enforcing timeout
// and ctx, then kills whatever is left of the group.
func supervise(ctx context.Context, pid int, timeout, grace time.Duration) (timedOut bool, err error) {
	exited := waitExit(pid)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-exited:
	case <-timer.C:
		timedOut = true
		terminate(pid, exited, grace)
	case <-ctx.Done():
		err = ctx.Err()
		terminate(pid, exited, grace)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	return timedOut, err
}

// terminate sends SIGTERM to the group and waits up to grace for the
// leader; the caller sends SIGKILL afterwards.
func terminate(pgid int, exited <-chan struct{}, grace time.Duration) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
}

// pipes are the three standard streams of one hook process.
type pipes struct{ inR, inW, outR, outW, errR, errW *os.File }

func openPipes() (*pipes, error) {
	var p pipes
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		p.inR.Close()
		p.inW.Close()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		p.closeChildEnds()
		p.inW.Close()
		p.outR.Close()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	return &p, nil
}

func (p *pipes) closeChildEnds() {
	for _, f := range []*os.File{p.inR, p.outW, p.errW} {
		if f != nil {
			_ = f.Close()
		}
	}
}

func (p *pipes) closeParentEnds() {
	_ = p.inW.Close()
	_ = p.outR.Close()
	_ = p.errR.Close()
}

// finish stops waiting on the pipes shortly after the group is gone: data
// already written is still read, a writer that escaped the group is not
// waited for.
func (p *pipes) finish() {
	_ = p.inW.Close()
	d := time.Now().Add(drainDelay)
	_ = p.outR.SetReadDeadline(d)
	_ = p.errR.SetReadDeadline(d)
}

type capture struct {
	buf       []byte
	total     int64
	truncated bool
}

// readCapped reads r to EOF (or its deadline) in the background, keeping
// the first max bytes and copying up to logMax bytes to log. It closes r.
func readCapped(r *os.File, max int, log io.Writer, logMax int64) <-chan capture {
	ch := make(chan capture, 1)
	go func() {
		defer r.Close()
		var c capture
		var logged int64
		chunk := make([]byte, 32<<10)
		for {
			n, err := r.Read(chunk)
			if n > 0 {
				c.total += int64(n)
				if room := max - len(c.buf); room > 0 {
					c.buf = append(c.buf, chunk[:min(n, room)]...)
				}
				if log != nil && logged < logMax {
					w, _ := log.Write(chunk[:min(int64(n), logMax-logged)])
					logged += int64(w)
				}
			}
			if err != nil {
				break
			}
		}
		c.truncated = c.total > int64(len(c.buf))
		if log != nil && logged < c.total {
			fmt.Fprintf(log, "\n[stderr cut: %d of %d bytes logged]\n", logged, c.total)
		}
		ch <- c
	}()
	return ch
}

// confiner returns what wraps h's process in its sandbox, or nil when the
// engine has no Sandbox function. A hook that cannot be sandboxed runs
// unsandboxed with one warning per engine, unless SandboxRequired: then
// it fails to start and the reason says why.
func (e *Engine) confiner(h *Hook, read ...string) func(*exec.Cmd) error {
	if e.opts.Sandbox == nil {
		return nil
	}
	return func(cmd *exec.Cmd) error {
		if cmd.Err != nil {
			return nil // the program is not there: Start says so
		}
		p, err := e.opts.Sandbox(h)
		if err != nil {
			return fmt.Errorf("sandbox of hook %s: %w", h.QualifiedName(), err)
		}
		if h.Extension != "" && h.Dir != "" && !p.Off() {
			p.Read = append(slices.Clone(p.Read), h.Dir) // its own files, even under a denied path
		}
		if len(read) > 0 && !p.Off() {
			p.Read = append(slices.Clone(p.Read), read...) // its Claude-format transcript, that file alone
		}
		if !p.Off() {
			p.MaxData, p.MaxFileSize = e.opts.MaxMemory, e.opts.MaxFileSize
		}
		err = e.wrap(cmd, p)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, sandbox.ErrUnavailable):
			return fmt.Errorf("sandbox of hook %s: %w", h.QualifiedName(), err)
		case e.opts.SandboxRequired:
			return fmt.Errorf("%w; sandbox.required is set, so hook %s does not run unsandboxed", err, h.QualifiedName())
		}
		e.unsandboxed.Do(func() {
			e.opts.Logger.Warn("hooks run without a sandbox (set sandbox.required: true to refuse instead)", "reason", err)
		})
		return nil
	}
}

// SandboxPolicy is the usual Options.Sandbox: a hook runs under its
// declared sandbox (Hook.Sandbox: its own, else its extension's
// permissions), else the profile's sandbox.hooks (profile), with what
// either leaves unset taken from sandbox.ProcessDefault (workspace-write
// with network), resolved in env (the workspace, homes and denyRead of
// this run).
func SandboxPolicy(profile schema.Sandbox, env sandbox.Env) func(*Hook) (sandbox.Policy, error) {
	return func(h *Hook) (sandbox.Policy, error) {
		decl := profile
		if !h.Sandbox.IsZero() {
			decl = h.Sandbox
		}
		p := sandbox.Resolve(decl, sandbox.ProcessDefault, env)
		if h.Scope == schema.ScopeBuiltin || h.Scope == schema.ScopeUser || h.Scope == schema.ScopeDirectory {
			p.AllowOwnFiles(env, append([]string{h.Def.Command}, h.Def.Args...))
		}
		if h.Extension != "" {
			// its own .ollm/data/<name>, the one place under .ollm/ it writes
			if err := p.AllowData(env.Workspace, sandbox.ExtensionData(env.Workspace, h.Extension)); err != nil {
				return p, err
			}
		}
		return p, nil
	}
}
