package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/tool"
)

//go:embed shell.md
var shellMD string

type shellParams struct {
	Command     string `json:"command"`
	Directory   string `json:"directory"`
	Timeout     int    `json:"timeout"`
	IdleTimeout *int   `json:"idleTimeout"`
	Background  bool   `json:"background"`
}

// shellOutputLimit bounds the output kept in memory per command.
const shellOutputLimit = 4 << 20

func newShell(e *env) tool.Tool {
	return &tool.Func[shellParams]{
		Spec: tool.Spec{ToolName: "shell", Desc: shellMD, ToolKind: tool.KindExecute, Params: obj([]string{"command"}, map[string]*tool.Schema{
			"command":     str("bash command line"),
			"directory":   str("working directory (default: workspace root)"),
			"timeout":     integer("milliseconds before the command is killed", 1),
			"idleTimeout": integer("milliseconds without output before the command is killed; 0 = none", 0),
			"background":  boolean("start in the background and return a job id"),
		})},
		New: func(p shellParams) (*tool.Call, error) {
			loc, err := e.resolve(p.Directory)
			if err != nil {
				return nil, err
			}
			dir := loc.Abs // the shell is not confined: the checked name is as good as any
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("shell: parameter \"directory\": %s is not a directory", e.rel(dir))}
			}
			desc := "Run " + p.Command
			if p.Background {
				desc = "Start in the background: " + p.Command
			}
			return &tool.Call{Desc: desc, Locs: []string{dir},
				Confirm: &tool.Confirmation{Title: desc, Command: p.Command},
				Run: func(ctx context.Context, out func(tool.Chunk)) (tool.Result, error) {
					if p.Background {
						return e.startJob(p, dir), nil
					}
					return e.runShell(ctx, p, dir, out), nil
				}}, nil
		},
	}
}

// shellEnv is the environment commands run with: ollm's by allow-list
// (sandbox.Environ), plus what tools.shell.allowEnv names.
func (e *env) shellEnv() []string {
	return sandbox.Environ(e.cfg.Environ(), e.cfg.Tools.Shell.AllowEnv)
}

func (e *env) shellTimeouts(p shellParams) (timeout, idle time.Duration) {
	timeout = 120 * time.Second
	if ms := e.cfg.Tools.Shell.Timeout; ms > 0 {
		timeout = time.Duration(ms) * time.Millisecond
	}
	if p.Timeout > 0 {
		timeout = time.Duration(p.Timeout) * time.Millisecond
	}
	idle = time.Duration(e.cfg.Tools.Shell.IdleTimeout) * time.Millisecond
	if p.IdleTimeout != nil {
		idle = time.Duration(*p.IdleTimeout) * time.Millisecond
	}
	return timeout, idle
}

func (e *env) runShell(ctx context.Context, p shellParams, dir string, out func(tool.Chunk)) tool.Result {
	timeout, idle := e.shellTimeouts(p)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	activity := make(chan struct{}, 1)
	o := &output{limit: shellOutputLimit, onWrite: func(s string) {
		select {
		case activity <- struct{}{}:
		default:
		}
		if out != nil {
			out(tool.Chunk{Text: s})
		}
	}}
	cmd := bashCommand(p.Command, dir, e.shellEnv())
	note, fail := e.sandboxed(cmd)
	if fail != nil {
		return tool.Result{ForModel: "Error (" + string(fail.Kind) + "): " + fail.Message, Display: fail.Message, Error: fail}
	}
	if note != "" {
		o.add([]byte(note), true)
	}
	cmd.Stdout, cmd.Stderr = streamWriter{o: o}, streamWriter{o: o, isErr: true}
	missing := e.missingTrustFiles()
	gitBefore, scanGit := e.gitDirs()
	started := time.Now()
	proc, err := sandbox.Start(cmd)
	if err != nil {
		if scanGit {
			e.gitAbandon()
		}
		return tool.Fail(tool.ErrExec, "start bash in %s: %v", e.rel(dir), err)
	}
	stop := watchdog(ctx, cmd, idle, activity)
	waitErr := proc.Wait()
	idled := stop()
	killGroup(cmd) // stragglers left in the background by the command
	r := shellResult(p.Command, cmd.ProcessState.ExitCode(), o, waitErr, shellEnd{ctx: ctx, idled: idled, timeout: timeout, idle: idle, elapsed: time.Since(started)}, e.truncateMore)
	if w := createdTrustFiles(missing, e.cfg.Root); w != "" {
		r.ForModel += "\n" + w
		r.Display += "\n" + w
	}
	if scanGit {
		for _, w := range e.holdNewGitDirs(gitBefore) {
			r.ForModel += "\n" + w
			r.Display += "\n" + w
		}
	}
	return e.withSandbox(r)
}

// withSandbox says in the result which sandbox the command ran in and,
// when the sandbox stopped it, what it refused.
func (e *env) withSandbox(r tool.Result) tool.Result {
	name := e.sandboxName()
	if name == "" {
		return r
	}
	if d, ok := r.Data.(map[string]any); ok {
		d["sandbox"] = name
	}
	if r.Error == nil {
		return r
	}
	stderr, _ := r.Data.(map[string]any)["stderr"].(string)
	if why := explainDenial(stderr, e.cfg.Sandbox, e.cfg.Root); why != "" {
		r.Error.Message = why + "; " + r.Error.Message
		r.ForModel = strings.Replace(r.ForModel, "): ", "): "+why+"; ", 1)
		r.Display = why + "\n" + r.Display
	}
	return r
}

// shellEnd says how a command ended, for shellResult.
type shellEnd struct {
	ctx           context.Context
	idled         bool
	timeout, idle time.Duration
	elapsed       time.Duration
}

func shellResult(command string, code int, o *output, waitErr error, end shellEnd, trunc func(string, tool.Truncation) string) tool.Result {
	o.mu.Lock()
	text, stderr := string(o.combined), strings.TrimSpace(string(o.stderr))
	more := o.notKept()
	o.mu.Unlock()
	body := trunc(text, more)
	var fail *tool.Error
	switch {
	case end.idled:
		fail = &tool.Error{Kind: tool.ErrTimeout, Message: fmt.Sprintf("no output for %s (idle timeout); the command was killed after %s", end.idle, end.elapsed.Round(time.Millisecond))}
	case errors.Is(end.ctx.Err(), context.DeadlineExceeded):
		fail = &tool.Error{Kind: tool.ErrTimeout, Message: fmt.Sprintf("the command timed out after %s (timeout %s) and was killed", end.elapsed.Round(time.Millisecond), end.timeout)}
	case end.ctx.Err() != nil:
		fail = &tool.Error{Kind: tool.ErrCancelled, Message: "the command was cancelled and killed"}
	case code != 0:
		fail = &tool.Error{Kind: tool.ErrExec, Message: fmt.Sprintf("exit code %d%s", code, lastLine(stderr))}
	case waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay):
		fail = &tool.Error{Kind: tool.ErrExec, Message: waitErr.Error()}
	}
	forModel := fmt.Sprintf("Exit code: %d\nOutput:\n%s", code, body)
	if fail != nil {
		forModel = fmt.Sprintf("Error (%s): %s\n%s", fail.Kind, fail.Message, forModel)
		if stderr != "" {
			forModel += "\nStderr:\n" + trunc(stderr, tool.Truncation{})
		}
	}
	return tool.Result{ForModel: forModel, Display: body, Error: fail, Data: map[string]any{"exitCode": code, "stderr": stderr}}
}

func lastLine(s string) string {
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return ": " + s
}
