package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/tools"
)

// Editor terminals. When the editor offers terminal/*, the shell tool's
// command (after the gate: hooks, policy, confirmation) runs in a terminal
// the editor creates, so the editor shows it live. The editor is not
// trusted to sandbox it: the command line it gets is ollm's own executable
// with the shell's sandbox policy in the environment
// (sandbox.External), which enters the namespaces, applies Landlock and
// executes bash -c with exactly the shell tool's environment. A machine
// that cannot sandbox, an Off policy, a background job or an editor that
// fails to create the terminal run the command in ollm as before: nothing
// runs unsandboxed in the editor.

// terminalMarker starts the progress message that tells the session which
// terminal a call runs in (Execute does not know its call id).
const terminalMarker = "\x00acp-terminal:"

// terminalOutputLimit is the output the editor keeps per terminal.
const terminalOutputLimit = 4 << 20

type terminalTool struct {
	tool.Tool
	s *session
}

func (t terminalTool) Build(params json.RawMessage) (tool.Invocation, error) {
	inv, err := t.Tool.Build(params)
	if err != nil {
		return nil, err
	}
	return terminalInvocation{Invocation: inv, s: t.s}, nil
}

type terminalInvocation struct {
	tool.Invocation
	s *session
}

type shellParams struct {
	Command     string `json:"command"`
	Timeout     int    `json:"timeout"`
	IdleTimeout *int   `json:"idleTimeout"`
	Background  bool   `json:"background"`
}

func (c terminalInvocation) Execute(ctx context.Context, out func(tool.Chunk)) (tool.Result, error) {
	s := c.s
	var p shellParams
	locs := c.Locations()
	if err := json.Unmarshal(c.Params(), &p); err != nil || p.Background || p.Command == "" || len(locs) != 1 {
		return c.Invocation.Execute(ctx, out)
	}
	dir := locs[0]
	policy, _, environ := s.rt.ShellLaunch()
	l, err := sandbox.External([]string{"bash", "-c", p.Command}, dir, environ, policy)
	if err != nil {
		s.a.logf("session %s: shell in ollm, not in the editor's terminal: %v", s.id, err)
		return c.Invocation.Execute(ctx, out)
	}
	env := make([]sdk.EnvVariable, 0, len(l.Env))
	for _, kv := range l.Env {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, sdk.EnvVariable{Name: k, Value: v})
	}
	sid := sdk.SessionId(s.id)
	limit := terminalOutputLimit
	missing := missingFiles(policy.Protect)
	// A repository the command creates where there was none is moved
	// aside when it ends, as the shell tool in ollm does (the kernel has
	// no rule per name to stop it).
	root := s.rt.Workspace.Root
	gitBefore, _ := sandbox.GitDirsUnder(root, gitScanLimit)
	created, err := s.a.conn.CreateTerminal(ctx, sdk.CreateTerminalRequest{SessionId: sid, Command: l.Path, Args: l.Args,
		Env: env, Cwd: &l.Dir, OutputByteLimit: &limit})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{ForModel: "Error (cancelled): the command was cancelled", Display: "cancelled",
				Error: &tool.Error{Kind: tool.ErrCancelled, Message: "the command was cancelled"}}, nil
		}
		s.a.logf("session %s: the editor could not create a terminal (%v); the shell runs in ollm", s.id, err)
		return c.Invocation.Execute(ctx, out)
	}
	id := created.TerminalId
	bg := context.WithoutCancel(ctx)
	defer func() {
		if _, err := s.a.conn.ReleaseTerminal(bg, sdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: id}); err != nil {
			s.a.logf("session %s: terminal/release %s: %v", s.id, id, err)
		}
	}()
	if out != nil {
		out(tool.Chunk{Message: terminalMarker + id})
	}
	shell := s.rt.Resolved().Profile.Tools.Shell
	timeout := 120 * time.Second
	if shell.Timeout > 0 {
		timeout = time.Duration(shell.Timeout) * time.Millisecond
	}
	if p.Timeout > 0 {
		timeout = time.Duration(p.Timeout) * time.Millisecond
	}
	idle := time.Duration(shell.IdleTimeout) * time.Millisecond
	if p.IdleTimeout != nil {
		idle = time.Duration(*p.IdleTimeout) * time.Millisecond
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var idled atomic.Bool
	if idle > 0 {
		go s.watchIdle(wctx, id, idle, func() { idled.Store(true); cancel() })
	}
	started := time.Now()
	exit, werr := s.a.conn.WaitForTerminalExit(wctx, sdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: id})
	ended := wctx.Err()
	if werr != nil {
		if _, err := s.a.conn.KillTerminal(bg, sdk.KillTerminalRequest{SessionId: sid, TerminalId: id}); err != nil {
			s.a.logf("session %s: terminal/kill %s: %v", s.id, id, err)
		}
	}
	o, oerr := s.a.conn.TerminalOutput(bg, sdk.TerminalOutputRequest{SessionId: sid, TerminalId: id})
	if oerr != nil && werr == nil {
		return tool.Fail(tool.ErrExec, "the editor's terminal lost the output: %v", oerr), nil
	}
	body := o.Output
	if o.Truncated {
		body = "[the start of the output was not kept]\n" + body
	}
	code := -1
	if exit.ExitCode != nil {
		code = *exit.ExitCode
	}
	var fail *tool.Error
	switch {
	case idled.Load() && ctx.Err() == nil:
		fail = &tool.Error{Kind: tool.ErrTimeout, Message: fmt.Sprintf("no output for %s (idle timeout); the command was killed after %s", idle, time.Since(started).Round(time.Millisecond))}
	case errors.Is(ended, context.DeadlineExceeded) && ctx.Err() == nil:
		fail = &tool.Error{Kind: tool.ErrTimeout, Message: fmt.Sprintf("the command timed out after %s (timeout %s) and was killed", time.Since(started).Round(time.Millisecond), timeout)}
	case ctx.Err() != nil:
		fail = &tool.Error{Kind: tool.ErrCancelled, Message: "the command was cancelled and killed"}
	case werr != nil:
		fail = &tool.Error{Kind: tool.ErrExec, Message: "the editor's terminal: " + werr.Error()}
	case exit.Signal != nil:
		fail = &tool.Error{Kind: tool.ErrExec, Message: "killed by signal " + *exit.Signal}
	case code == 125 && strings.Contains(body, "ollm sandbox:"):
		fail = &tool.Error{Kind: tool.ErrExec, Message: "the sandbox could not be entered in the editor's terminal; nothing ran: " + lastLine(body)}
	case code != 0:
		fail = &tool.Error{Kind: tool.ErrExec, Message: fmt.Sprintf("exit code %d", code)}
	}
	display := body
	if fail != nil && fail.Kind == tool.ErrExec {
		// As the shell tool in ollm says it: which path or the network
		// the sandbox refused, and why.
		if why := tools.ExplainDenial(body, &policy, s.rt.Workspace.Root); why != "" {
			fail.Message = why + "; " + fail.Message
			display = why + "\n" + display
		}
	}
	// The runtime gives the shell tool the default limits.
	short, _ := tool.Truncate(body, tool.DefaultLimits)
	forModel := fmt.Sprintf("Exit code: %d\nOutput:\n%s", code, short)
	if fail != nil {
		forModel = fmt.Sprintf("Error (%s): %s\n%s", fail.Kind, fail.Message, forModel)
	}
	if w := createdFiles(missing, s.rt.Workspace.Root); w != "" {
		forModel += "\n" + w
		display += "\n" + w
	}
	if root != "" {
		after, _ := sandbox.GitDirsUnder(root, gitScanLimit)
		for _, h := range sandbox.HoldNewGitDirs(root, gitBefore, after) {
			forModel += "\nwarning: " + h.String()
			display += "\nwarning: " + h.String()
		}
	}
	return tool.Result{ForModel: forModel, Display: display, Error: fail,
		Data: map[string]any{"exitCode": code, "sandbox": policy.String(), "terminal": id}}, nil
}

// watchIdle calls kill when the terminal's output has not changed for
// idle (tools.shell.idleTimeout, or the call's idleTimeout), as the shell
// tool's watchdog does in ollm. The editor has no output events, so it
// asks for the output a few times per idle period; it stops when ctx ends
// or the command exits.
func (s *session) watchIdle(ctx context.Context, id string, idle time.Duration, kill func()) {
	every := min(max(idle/4, 50*time.Millisecond), 500*time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	var last string
	lastLen, seen := -1, time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		o, err := s.a.conn.TerminalOutput(ctx, sdk.TerminalOutputRequest{SessionId: sdk.SessionId(s.id), TerminalId: id})
		if err != nil || o.ExitStatus != nil {
			return
		}
		// The editor may drop the output's start once past its limit:
		// compare the length and the end.
		tail := o.Output[max(0, len(o.Output)-256):]
		if len(o.Output) != lastLen || tail != last {
			lastLen, last, seen = len(o.Output), tail, time.Now()
			continue
		}
		if time.Since(seen) >= idle {
			kill()
			return
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// gitScanLimit bounds the directories looked at for a new .git.
const gitScanLimit = 20000

// missingFiles are the protected paths that do not exist: the sandbox
// cannot mount them read-only.
func missingFiles(protect []string) []string {
	var out []string
	for _, p := range protect {
		if _, err := os.Lstat(p); os.IsNotExist(err) {
			out = append(out, p)
		}
	}
	return out
}

// createdFiles warns about the trust files a command created (as the
// shell tool does in ollm).
func createdFiles(missing []string, root string) string {
	var made []string
	for _, p := range missing {
		if _, err := os.Lstat(p); err == nil {
			if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
				p = r
			}
			made = append(made, p)
		}
	}
	if len(made) == 0 {
		return ""
	}
	return fmt.Sprintf("warning: the command created %s, which decide what ollm or git runs; review them before you run git or ollm trust here (ollm holds back a changed workspace until you approve it again)", strings.Join(made, ", "))
}
