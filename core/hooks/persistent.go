package hooks

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/ollm/ollm/core/sandbox"
)

// PersistentOptions tune persistent hooks.
type PersistentOptions struct {
	Handshake   time.Duration // how long a new process has to answer hello (default 5 s)
	BackoffBase time.Duration // first restart delay after a crash (default 250 ms)
	BackoffMax  time.Duration // longest restart delay (default 30 s)
}

func (o PersistentOptions) withDefaults() PersistentOptions {
	if o.Handshake <= 0 {
		o.Handshake = 5 * time.Second
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = 250 * time.Millisecond
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = 30 * time.Second
	}
	return o
}

// Backoff is the delay before restart number n (n >= 1) of a crashed
// persistent hook: base doubling up to max.
func Backoff(n int, base, max time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}

// persistentProc is one persistent hook: at most one live process (conn)
// at a time, restarted with backoff after a crash.
type persistentProc struct {
	e *Engine
	h *Hook

	mu        sync.Mutex
	c         *conn
	crashes   int
	nextStart time.Time
	closed    bool
}

// conn is one running process speaking newline-delimited JSON.
type conn struct {
	cmd  *exec.Cmd
	proc *sandbox.Process // what Start started: Wait it, not cmd
	pgid int
	in   *os.File
	wmu  sync.Mutex // one writer per process

	mu      sync.Mutex
	pending map[uint64]chan reply
	nextID  uint64
	hello   chan struct{}
	dead    chan struct{} // closed once the process is gone and reaped
	// onFrame receives the lines the process sends on its own (no id):
	// commands, notifications, custom events (channel.go).
	onFrame func(typ string, line []byte)
	// closeLog flushes and closes the stderr log once the process is gone.
	closeLog func()
	// seed002 is set when the process introduced itself with seed 002's
	// hello (it lists capabilities): it answers no events, and its
	// registrations are awaited after the hello (seed002.go).
	seed002 bool
	frames  chan struct{} // a frame after the hello was handled
	ready   chan struct{} // closed on seed 002's ready frame
}

type reply struct {
	line      []byte
	truncated bool
}

func (e *Engine) runPersistent(ctx context.Context, h *Hook, ev Event, data, extra map[string]any) RunOutput {
	return e.proc(h).call(ctx, ev, data, extra)
}

// proc is h's persistent process record, made on first use.
func (e *Engine) proc(h *Hook) *persistentProc {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.procs[h.ID()]
	if p == nil {
		p = &persistentProc{e: e, h: h}
		e.procs[h.ID()] = p
	}
	return p
}

// StartPersistent starts the approved persistent hooks declared on
// session_start without sending them an event, so that the commands they
// register are there again after a reload (the session does not start
// again). A hook that cannot start is logged and left to its next event.
func (e *Engine) StartPersistent(ctx context.Context) {
	if !e.opts.Enabled {
		return
	}
	for _, h := range e.reg.ForEvent(SessionStart) {
		if !h.Def.Persistent {
			continue
		}
		if ok, _ := e.allowed(ctx, h); !ok {
			continue
		}
		if _, err := e.proc(h).ensure(); err != nil {
			e.opts.Logger.Warn("persistent hook did not start", "hook", h.QualifiedName(), "error", err)
		}
	}
}

// call sends one event and waits for the answer with the same id.
func (p *persistentProc) call(ctx context.Context, ev Event, data, extra map[string]any) RunOutput {
	c, err := p.ensure()
	if err != nil {
		return RunOutput{ExitCode: -1, StartErr: err}
	}
	if c.answersNoEvents() {
		return RunOutput{}
	}
	return p.request(ctx, func(id uint64) ([]byte, error) {
		return BuildInput(p.h, ev, data, extra, sessionFor(ctx, p.e.opts.Session), p.e.opts.Now(), id)
	})
}

// request sends the line build makes for a fresh id and waits for the
// answer with that id.
func (p *persistentProc) request(ctx context.Context, build func(id uint64) ([]byte, error)) RunOutput {
	c, err := p.ensure()
	if err != nil {
		return RunOutput{ExitCode: -1, StartErr: err}
	}
	id, ch := c.register()
	defer c.unregister(id)
	input, err := build(id)
	if err == nil {
		err = c.writeLine(input)
	}
	if err != nil {
		p.crashed(c)
		return RunOutput{ExitCode: -1, Err: fmt.Errorf("send to persistent hook: %w", err)}
	}
	timer := time.NewTimer(p.h.timeout(p.e.opts.Timeout))
	defer timer.Stop()
	select {
	case r := <-ch:
		p.succeeded()
		return RunOutput{Stdout: r.line, Truncated: r.truncated}
	case <-c.dead:
		p.crashed(c)
		return RunOutput{ExitCode: c.cmd.ProcessState.ExitCode(), Err: errors.New("persistent hook exited before answering")}
	case <-timer.C:
		p.kill(c)
		p.crashed(c)
		return RunOutput{ExitCode: -1, TimedOut: true}
	case <-ctx.Done():
		return RunOutput{ExitCode: -1, Err: ctx.Err()}
	}
}

// ensure returns the live process, starting one if the backoff allows.
func (p *persistentProc) ensure() (*conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("engine closed")
	}
	if p.c != nil && !p.c.isDead() {
		return p.c, nil
	}
	if now := time.Now(); now.Before(p.nextStart) {
		return nil, fmt.Errorf("persistent hook crashed %d times; next restart in %s", p.crashes, p.nextStart.Sub(now).Round(time.Millisecond))
	}
	c, err := p.start()
	if err != nil {
		p.crashes++
		p.nextStart = time.Now().Add(Backoff(p.crashes, p.e.opts.Persistent.BackoffBase, p.e.opts.Persistent.BackoffMax))
		return nil, err
	}
	p.c = c
	return c, nil
}

func (p *persistentProc) crashed(c *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c != c {
		return // already counted
	}
	p.c = nil
	p.crashes++
	p.nextStart = time.Now().Add(Backoff(p.crashes, p.e.opts.Persistent.BackoffBase, p.e.opts.Persistent.BackoffMax))
	p.e.opts.Logger.Warn("persistent hook crashed", "hook", p.h.QualifiedName(), "crashes", p.crashes, "restartAfter", p.nextStart)
}

func (p *persistentProc) succeeded() {
	p.mu.Lock()
	p.crashes = 0
	p.mu.Unlock()
}

// start launches the process in its own group and waits for its hello.
func (p *persistentProc) start() (*conn, error) {
	e, h := p.e, p.h
	dir := e.dir(h)
	path, args := commandLine(h, dir)
	if h.Def.Shell != "" {
		var err error
		if path, args, err = shellLine(h); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Dir, cmd.Env = dir, e.env(h, "")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // before the sandbox, which adds to it
	if confine := e.confiner(h); confine != nil {
		if err := confine(cmd); err != nil {
			return nil, fmt.Errorf("start persistent hook %s: %w", h.QualifiedName(), err)
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	// stderr goes to the log through a redacting writer (exec copies it
	// from a pipe; WaitDelay keeps an escaped child holding the pipe from
	// blocking Wait).
	logf := e.persistentLog(h)
	var stderr *redactingWriter
	if logf != nil {
		stderr = newRedactingWriter(logf, e.secretsOf(h))
		cmd.Stderr, cmd.WaitDelay = stderr, e.opts.Grace
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	proc, err := sandbox.Start(cmd)
	inR.Close()
	outW.Close()
	if err != nil && logf != nil {
		logf.Close()
	}
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start persistent hook %s: %w", h.QualifiedName(), err)
	}
	if cmd.Path != sandboxedPath {
		limitProcess(cmd.Process.Pid, e.opts.MaxMemory, e.opts.MaxFileSize)
	}
	c := &conn{cmd: cmd, proc: proc, pgid: cmd.Process.Pid, in: inW, pending: map[uint64]chan reply{},
		hello: make(chan struct{}), dead: make(chan struct{}), onFrame: p.frame,
		frames: make(chan struct{}, 1), ready: make(chan struct{})}
	if logf != nil {
		c.closeLog = func() { _ = stderr.Close(); _ = logf.Close() }
	}
	go c.readLoop(outR, e.opts.MaxOutput)
	return c, p.handshake(c)
}

// handshake sends hello and waits for the process to answer it.
func (p *persistentProc) handshake(c *conn) error {
	hello, _ := json.Marshal(p.e.hello(p.h))
	if err := c.writeLine(hello); err != nil {
		p.kill(c)
		return fmt.Errorf("persistent hook %s: send hello: %w", p.h.QualifiedName(), err)
	}
	t := time.NewTimer(p.e.opts.Persistent.Handshake)
	defer t.Stop()
	select {
	case <-c.hello:
		if c.seed002 {
			// Seed 002's host answers the extension's hello with
			// hello_ack: the protocol, the active provider, model and
			// directory, which it may register its commands by.
			ack, _ := json.Marshal(p.e.helloAck())
			if err := c.writeLine(ack); err != nil {
				p.kill(c)
				return fmt.Errorf("persistent hook %s: send hello_ack: %w", p.h.QualifiedName(), err)
			}
			c.awaitRegistrations(t.C)
		}
		return nil
	case <-c.dead:
		return fmt.Errorf("persistent hook %s exited during the handshake", p.h.QualifiedName())
	case <-t.C:
		p.kill(c)
		return fmt.Errorf("persistent hook %s did not answer hello within %s", p.h.QualifiedName(), p.e.opts.Persistent.Handshake)
	}
}

// hello is the first line a persistent hook reads: the protocol, who it
// is, and what seed 002's hello_ack tells an extension about the host
// (the project directory, the model, ollm's version).
func (e *Engine) hello(h *Hook) map[string]any {
	return map[string]any{"type": "hello", "protocolVersion": ProtocolVersion,
		"hookName": h.Name, "extension": h.Extension, "sessionId": e.opts.Session.ID,
		"cwd": e.opts.Session.Cwd, "provider": e.provider(), "model": e.model(), "ollmVersion": e.opts.Version}
}

// helloAck is seed 002's hello_ack, in its field names.
func (e *Engine) helloAck() map[string]any {
	return map[string]any{"type": "hello_ack", "protocol_version": 1, "ollm_version": e.opts.Version,
		"provider": e.provider(), "model": e.model(), "cwd": e.opts.Session.Cwd}
}

func (e *Engine) model() string {
	if e.opts.Model == nil {
		return ""
	}
	return e.opts.Model()
}

func (e *Engine) provider() string {
	if e.opts.Provider == nil {
		return ""
	}
	return e.opts.Provider()
}

func (e *Engine) persistentLog(h *Hook) *os.File {
	if e.opts.LogDir == "" {
		return nil
	}
	if err := os.MkdirAll(e.opts.LogDir, 0o700); err != nil {
		return nil
	}
	f, err := os.OpenFile(LogPath(e.opts.LogDir, h.Extension), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil
	}
	fmt.Fprintf(f, "--- %s persistent hook %s started\n", e.opts.Now().UTC().Format(time.RFC3339), h.QualifiedName())
	return f
}

// kill ends the process group: SIGTERM, then SIGKILL after the grace.
func (p *persistentProc) kill(c *conn) {
	if c.isDead() {
		return
	}
	_ = syscall.Kill(-c.pgid, syscall.SIGTERM)
	t := time.NewTimer(p.e.opts.Grace)
	defer t.Stop()
	select {
	case <-c.dead:
	case <-t.C:
		_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
		<-c.dead
	}
}

// shutdown asks the process to stop, then ends it if it does not.
func (p *persistentProc) shutdown() {
	p.mu.Lock()
	p.closed = true
	c := p.c
	p.c = nil
	p.mu.Unlock()
	if c == nil {
		return
	}
	_ = c.writeLine([]byte(`{"type":"shutdown"}`))
	_ = c.in.Close()
	t := time.NewTimer(p.e.opts.Grace)
	defer t.Stop()
	select {
	case <-c.dead:
	case <-t.C:
		p.kill(c)
	}
}

func (c *conn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.in.Write(append(b, '\n'))
	return err
}

func (c *conn) register() (uint64, chan reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	ch := make(chan reply, 1)
	c.pending[c.nextID] = ch
	return c.nextID, ch
}

func (c *conn) unregister(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *conn) isDead() bool {
	select {
	case <-c.dead:
		return true
	default:
		return false
	}
}

// readLoop dispatches answer lines by id until stdout closes, then kills
// what is left of the group and reaps the process.
func (c *conn) readLoop(r *os.File, max int) {
	br := bufio.NewReaderSize(r, 64<<10)
	helloSeen := false
	for {
		line, truncated, err := readLine(br, max)
		if len(line) > 0 {
			helloSeen = c.dispatch(line, truncated, helloSeen)
		}
		if err != nil {
			break
		}
	}
	_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
	_ = c.proc.Wait()
	if c.closeLog != nil {
		c.closeLog()
	}
	_ = r.Close()
	_ = c.in.Close()
	close(c.dead)
}

func (c *conn) dispatch(line []byte, truncated, helloSeen bool) bool {
	var head struct {
		ID   uint64 `json:"id"`
		Type string `json:"type"`
	}
	_ = json.Unmarshal(line, &head)
	if !helloSeen {
		if head.Type == "hello" {
			c.seed002 = isSeed002Hello(line)
			c.onFrame(head.Type, line) // a hello may list commands
			close(c.hello)
			return true
		}
		return false
	}
	if head.ID == 0 && head.Type != "" {
		c.onFrame(head.Type, line)
		c.framed(head.Type)
		return true
	}
	c.mu.Lock()
	ch := c.pending[head.ID]
	c.mu.Unlock()
	if ch != nil {
		select {
		case ch <- reply{line: line, truncated: truncated}:
		default: // a duplicate answer
		}
	}
	return true
}

// readLine reads one line, keeping at most max bytes of it; truncated
// says whether more was dropped.
func readLine(br *bufio.Reader, max int) ([]byte, bool, error) {
	var line []byte
	total := 0
	for {
		frag, err := br.ReadSlice('\n')
		total += len(frag)
		if room := max - len(line); room > 0 {
			line = append(line, frag[:min(len(frag), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, total > len(line), err
	}
}
