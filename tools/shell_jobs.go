package tools

import (
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/tool"
)

// jobTable holds the background commands of one session.
type jobTable struct {
	mu   sync.Mutex
	next int
	jobs map[string]*job
}

func newJobTable() *jobTable { return &jobTable{jobs: map[string]*job{}} }

// job is one background command. Its output buffer keeps the newest
// jobBufLimit bytes; read is how far shell_output has read.
type job struct {
	id, command, dir string
	started          time.Time

	mu      sync.Mutex
	buf     []byte
	base    int // offset of buf[0] in the whole output
	read    int // offset shell_output has returned up to
	done    bool
	code    int
	stopErr error
	killed  bool
	killFn  func()
	exited  chan struct{}
}

const jobBufLimit = 1 << 20

func (j *job) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.buf = append(j.buf, p...)
	if over := len(j.buf) - jobBufLimit; over > 0 {
		j.buf = append(j.buf[:0], j.buf[over:]...)
		j.base += over
	}
	return len(p), nil
}

// unread returns the output since the last call and how many bytes of it
// were dropped because the buffer overflowed.
func (j *job) unread() (string, int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	dropped := 0
	if j.read < j.base {
		dropped, j.read = j.base-j.read, j.base
	}
	s := string(j.buf[j.read-j.base:])
	j.read = j.base + len(j.buf)
	return s, dropped
}

func (j *job) status() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case !j.done:
		return fmt.Sprintf("running for %s", time.Since(j.started).Round(time.Second))
	case j.killed:
		return "killed"
	default:
		return fmt.Sprintf("exited with code %d", j.code)
	}
}

func (e *env) startJob(p shellParams, dir string) tool.Result {
	cmd := bashCommand(p.Command, dir, e.shellEnv())
	if _, fail := e.sandboxed(cmd); fail != nil {
		return tool.Result{ForModel: "Error (" + string(fail.Kind) + "): " + fail.Message, Display: fail.Message, Error: fail}
	}
	e.jobs.mu.Lock()
	e.jobs.next++
	j := &job{id: "job-" + strconv.Itoa(e.jobs.next), command: p.Command, dir: dir, started: time.Now(), exited: make(chan struct{})}
	e.jobs.jobs[j.id] = j
	e.jobs.mu.Unlock()
	cmd.Stdout, cmd.Stderr = j, j
	// A .git the job creates is moved aside when it ends, as after a
	// shell call (the list is walked at its start: a repository made
	// while it runs, by anyone, counts as the job's).
	gitBefore, scanGit := e.gitDirs()
	proc, err := sandbox.Start(cmd)
	if err != nil {
		if scanGit {
			e.gitAbandon()
		}
		return tool.Fail(tool.ErrExec, "start bash in %s: %v", e.rel(dir), err)
	}
	j.mu.Lock()
	j.killFn = func() { killGroup(cmd) }
	j.mu.Unlock()
	go func() {
		err := proc.Wait()
		if scanGit {
			for _, w := range e.holdNewGitDirs(gitBefore) {
				_, _ = j.Write([]byte("\n" + w + "\n"))
			}
		}
		j.mu.Lock()
		j.done, j.code, j.stopErr = true, cmd.ProcessState.ExitCode(), err
		j.mu.Unlock()
		close(j.exited)
	}()
	msg := fmt.Sprintf("Started %s (pid %d): %s\nRead its output with shell_output {\"id\": %q}; stop it with shell_kill.", j.id, cmd.Process.Pid, p.Command, j.id)
	return tool.Result{ForModel: msg, Display: msg, Data: map[string]any{"id": j.id, "pid": cmd.Process.Pid}}
}

// kill stops the job's process group; a finished job is left alone.
func (j *job) kill() {
	j.mu.Lock()
	k := j.killFn
	if !j.done {
		j.killed = true
	}
	j.mu.Unlock()
	if k != nil {
		k()
	}
}

func (t *jobTable) get(id string) (*job, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if j, ok := t.jobs[id]; ok {
		return j, nil
	}
	ids := make([]string, 0, len(t.jobs))
	for k := range t.jobs {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	return nil, &tool.Error{Kind: tool.ErrNotFound, Message: fmt.Sprintf("no background job %q; known jobs: %v", id, ids)}
}

// KillAll stops every background job; the runtime calls it when a session ends.
func (t *jobTable) KillAll() {
	t.mu.Lock()
	jobs := make([]*job, 0, len(t.jobs))
	for _, j := range t.jobs {
		jobs = append(jobs, j)
	}
	t.mu.Unlock()
	for _, j := range jobs {
		j.kill()
	}
}
