package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/sandbox/sandboxtest"
)

// termClient is an editor that offers terminals: terminal/create really
// starts the command it is given, as it is, with the editor's own
// environment underneath the request's (and a secret of its own), in a
// process group of its own; output, wait, kill and release act on it.
type termClient struct {
	*acpClient
	terms    map[string]*editorTerm
	created  []sdk.CreateTerminalRequest
	killed   []string
	released []string
}

type editorTerm struct {
	cmd    *exec.Cmd
	out    []byte // under acpClient.mu
	done   chan struct{}
	status sdk.TerminalExitStatus
}

type termWriter struct {
	c *termClient
	t *editorTerm
}

func (w termWriter) Write(p []byte) (int, error) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	w.t.out = append(w.t.out, p...)
	w.c.notify()
	return len(p), nil
}

func newTermClient() *termClient {
	return &termClient{acpClient: newACPClient(), terms: map[string]*editorTerm{}}
}

func (c *termClient) CreateTerminal(ctx context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	cmd := exec.Command(p.Command, p.Args...)
	if p.Cwd != nil {
		cmd.Dir = *p.Cwd
	}
	cmd.Env = append(os.Environ(), "EDITOR_ONLY=editor", "GITHUB_TOKEN=editor-token")
	for _, e := range p.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t := &editorTerm{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = termWriter{c, t}, termWriter{c, t}
	if err := cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, err
	}
	c.mu.Lock()
	id := fmt.Sprintf("term-%d", len(c.created)+1)
	c.created = append(c.created, p)
	c.terms[id] = t
	c.notify()
	c.mu.Unlock()
	go func() {
		err := cmd.Wait()
		c.mu.Lock()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig := ws.Signal().String()
			t.status.Signal = &sig
		} else if err == nil || cmd.ProcessState != nil {
			code := cmd.ProcessState.ExitCode()
			t.status.ExitCode = &code
		}
		c.mu.Unlock()
		close(t.done)
	}()
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (c *termClient) term(id string) (*editorTerm, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.terms[id]
	if t == nil {
		return nil, errors.New("no terminal " + id)
	}
	return t, nil
}

func (c *termClient) TerminalOutput(ctx context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	t, err := c.term(p.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r := sdk.TerminalOutputResponse{Output: string(t.out)}
	select {
	case <-t.done:
		st := t.status
		r.ExitStatus = &st
	default:
	}
	return r, nil
}

func (c *termClient) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	t, err := c.term(p.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return sdk.WaitForTerminalExitResponse{ExitCode: t.status.ExitCode, Signal: t.status.Signal}, nil
}

// KillTerminal kills the process group and returns once it is reaped.
func (c *termClient) KillTerminal(ctx context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	t, err := c.term(p.TerminalId)
	if err != nil {
		return sdk.KillTerminalResponse{}, err
	}
	_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	<-t.done
	c.mu.Lock()
	c.killed = append(c.killed, p.TerminalId)
	c.mu.Unlock()
	return sdk.KillTerminalResponse{}, nil
}

func (c *termClient) ReleaseTerminal(ctx context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	t, err := c.term(p.TerminalId)
	if err != nil {
		return sdk.ReleaseTerminalResponse{}, err
	}
	_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	<-t.done
	c.mu.Lock()
	c.released = append(c.released, p.TerminalId)
	c.mu.Unlock()
	return sdk.ReleaseTerminalResponse{}, nil
}

func (c *termClient) output(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.terms[id]; t != nil {
		return string(t.out)
	}
	return ""
}

// toolTerminal is the terminal the editor shows in a tool call.
func toolTerminal(ups []sdk.SessionNotification, id sdk.ToolCallId) string {
	var out string
	for _, u := range ups {
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == id {
			for _, c := range tu.Content {
				if c.Terminal != nil {
					out = c.Terminal.TerminalId
				}
			}
		}
	}
	return out
}

// outsideTemp is a directory outside the box's workspace that the
// shell's real policy (not the test box's) keeps from a sandboxed write:
// b.Outside, or, when the checkout lies under one of the temporary
// directories every sandboxed shell may write (/tmp), a new directory in
// the user's home, or, when that home is under /tmp too (a fresh CI
// machine), the box's $OLLM_HOME itself, which the sandbox covers with an
// empty read-only mount wherever a writable directory holds it
// (sandbox.hidden). Not the box's home: with the private build cache in
// it, only its entries are covered and a new file in it can be written
// (docs/notes/start.md).
func outsideTemp(t *testing.T, b *sandboxtest.Box) string {
	t.Helper()
	underTemp := func(p string) bool {
		for _, tmp := range []string{"/tmp", "/var/tmp", "/dev/shm", os.Getenv("TMPDIR")} {
			if tmp != "" && (p == tmp || strings.HasPrefix(p, strings.TrimSuffix(tmp, "/")+"/")) {
				return true
			}
		}
		return false
	}
	if !underTemp(b.Outside) {
		return b.Outside
	}
	home, err := os.UserHomeDir()
	if err != nil || underTemp(home) {
		return b.OllmHome
	}
	out, err := os.MkdirTemp(home, ".ollm-test-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	return out
}

// boxSession is a session environment over a sandbox test box: a home
// holding a private key, a user profile naming the test model, the fake
// Ollama, and exactly the environment given (plus OLLM_HOME, OLLAMA_HOST,
// PATH, HOME and TMPDIR).
func boxSession(t *testing.T, extra map[string]string) (*sessionEnv, *sandboxtest.Box) {
	b := sandboxtest.New(t)
	e := &sessionEnv{t: t, home: b.OllmHome, ws: b.WS, srv: llmtest.NewOllama(t), log: filepath.Join(b.Root, "hooks.log")}
	env := map[string]string{"OLLM_HOME": b.OllmHome, "OLLAMA_HOST": e.srv.URL, "PATH": os.Getenv("PATH"), "HOME": b.Home, "TMPDIR": b.Tmp}
	for k, v := range extra {
		env[k] = v
	}
	e.f = &Factory{IO: &IOStreams{In: eofReader{}, Out: &syncBuffer{}, ErrOut: &syncBuffer{}}, Getenv: func(k string) string { return env[k] },
		Environ: func() []string {
			var out []string
			for k, v := range env {
				out = append(out, k+"="+v)
			}
			return out
		},
		Getwd: func() (string, error) { return b.WS, nil }, Now: time.Now, Context: context.Background()}
	e.write(filepath.Join(b.OllmHome, "profile.cue"), `model: name: "test-model"`+"\n")
	e.write(filepath.Join(b.Home, ".ssh", "id_rsa"), "PRIVATE KEY\n")
	return e, b
}

// termSession is an ACP session of ollm's in an editor that offers
// terminals, over a sandbox test box whose home holds a private key.
func termSession(t *testing.T) (*sessionEnv, *sandboxtest.Box, *termClient, *acpConn, sdk.SessionId) {
	e, b := boxSession(t, map[string]string{"LANG": "C.UTF-8", "OLLM_TEST_HIDDEN": "no", "GITHUB_TOKEN": "ollm-token"})

	c := newTermClient()
	conn := connectACPWith(t, e.f, c, sdk.ClientCapabilities{Terminal: true})
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: b.WS, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return e, b, c, conn, ns.SessionId
}

// With an editor that offers terminals, the shell tool's command runs in
// one, after the gate (the editor's permission prompt), and the tool call
// shows the terminal. The command the editor starts is ollm entering its
// own sandbox: the workspace is written, the home's .ssh and a directory
// outside the workspace are not, the key is hidden, and the command sees
// the shell tool's environment (ollm's by allow-list), not the editor's. A cancel
// kills the terminal's process.
func TestACPShellInTheEditorsTerminal(t *testing.T) {
	e, b, c, conn, sid := termSession(t)
	ctx := context.Background()
	outside := outsideTemp(t, b)
	command := strings.Join([]string{
		"echo in-ws > made.txt && cat made.txt",
		"(echo x > $HOME/.ssh/x) 2>/dev/null || echo ssh-refused",
		"(echo y > " + filepath.Join(outside, "x") + ") 2>/dev/null || echo outside-refused",
		"cat $HOME/.ssh/id_rsa 2>/dev/null || echo key-hidden",
		`echo "token=$GITHUB_TOKEN editor=$EDITOR_ONLY visible=$LANG hidden=$OLLM_TEST_HIDDEN"`,
	}, "; ")
	e.srv.Reply(llmtest.ToolCallWithID("sh-1", "shell", map[string]any{"command": command}))
	e.srv.Reply(llmtest.Text("Done."))
	c.answers = []string{"allow_once"}
	pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: text("try the sandbox")})
	if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	ups := c.take()
	want := "in-ws\nssh-refused\noutside-refused\nkey-hidden\ntoken= editor= visible=C.UTF-8 hidden=\n"
	if len(c.perms) != 1 || c.perms[0].ToolCall.ToolCallId != "sh-1" {
		t.Fatalf("permission requests: %+v", c.perms)
	}
	if len(c.created) != 1 {
		t.Fatalf("terminals created: %+v", c.created)
	}
	if got := c.output("term-1"); got != want {
		t.Fatalf("the editor's terminal shows %q, want %q", got, want)
	}
	self := fmt.Sprintf("/proc/%d/exe", os.Getpid())
	if cr := c.created[0]; cr.Command != self || len(cr.Args) < 4 || cr.Args[0] != "acp" || cr.Args[1] != "terminal-exec" || cr.Args[2] != "--" ||
		cr.Cwd == nil || *cr.Cwd != b.WS {
		t.Fatalf("terminal/create: %s %q in %v", cr.Command, cr.Args, cr.Cwd)
	}
	if id := toolTerminal(ups, "sh-1"); id != "term-1" || lastStatus(ups, "sh-1") != sdk.ToolCallStatusCompleted {
		t.Fatalf("tool call: terminal %q, status %s", id, lastStatus(ups, "sh-1"))
	}
	var result string
	for _, m := range e.srv.LastRequest().Messages {
		if m.Role == "tool" {
			result = m.Content
		}
	}
	if !strings.Contains(result, "Exit code: 0") || !strings.Contains(result, want) || strings.Contains(result, "PRIVATE KEY") {
		t.Fatalf("tool result for the model: %q", result)
	}
	if data, err := os.ReadFile(filepath.Join(b.WS, "made.txt")); err != nil || string(data) != "in-ws\n" {
		t.Fatalf("made.txt: %q %v", data, err)
	}
	for _, p := range []string{filepath.Join(b.Home, ".ssh", "x"), filepath.Join(outside, "x")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written from the editor's terminal", p)
		}
	}

	// Cancel: the terminal is killed, the process is gone.
	if _, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Reply(llmtest.ToolCallWithID("sh-2", "shell", map[string]any{"command": "echo pid $$; exec sleep 60"}))
	done := make(chan sdk.PromptResponse, 1)
	go func() {
		r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: text("wait a minute")})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	var pid int
	c.waitFor(func([]sdk.SessionNotification, []sdk.RequestPermissionRequest) bool {
		if t := c.terms["term-2"]; t != nil {
			if m := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(string(t.out)); m != nil {
				pid, _ = strconv.Atoi(m[1])
				return true
			}
		}
		return false
	})
	if err := conn.Cancel(ctx, sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt after cancel: %+v", r)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the command (pid %d) still runs after the cancel: %v", pid, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if strings.Join(c.killed, ",") != "term-2" || strings.Join(c.released, ",") != "term-1,term-2" {
		t.Fatalf("killed %q, released %q", c.killed, c.released)
	}
}

// An editor that drops the terminal's environment drops the sandbox
// policy with it: the trampoline does not take over and the hidden
// command runs nothing.
func TestACPTerminalExecWithoutPolicyRunsNothing(t *testing.T) {
	e := newSessionEnv(t)
	marker := filepath.Join(e.ws, "ran")
	io, _, _, errOut := TestIO()
	e.f.IO = io
	code := Run(e.f, []string{"acp", "terminal-exec", "--", "bash", "-c", "touch " + marker})
	if code == ExitOK || !strings.Contains(errOut.String(), "the sandbox policy is missing; nothing ran") {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran")
	}
}

// In the editor's terminal as in ollm: a command that prints nothing for
// the idle timeout is killed and the model hears why, and a write the
// sandbox refuses is explained ("blocked by the sandbox: ...", naming the
// path), not left as a bare exit code.
func TestACPTerminalIdleTimeoutAndDenial(t *testing.T) {
	e, b, c, conn, sid := termSession(t)
	ctx := context.Background()
	if _, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(outsideTemp(t, b), "x")
	e.srv.Reply(llmtest.ToolCallWithID("sh-1", "shell", map[string]any{"command": "echo started; exec sleep 60", "idleTimeout": 400}))
	e.srv.Reply(llmtest.ToolCallWithID("sh-2", "shell", map[string]any{"command": "echo y > " + outside}))
	e.srv.Reply(llmtest.Text("Done."))
	pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: text("try both")})
	if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	var results []string
	for _, m := range e.srv.LastRequest().Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 2 {
		t.Fatalf("tool results: %q", results)
	}
	if !strings.Contains(results[0], "no output for 400ms (idle timeout); the command was killed") || !strings.Contains(results[0], "started") {
		t.Errorf("idle command, the model reads: %q", results[0])
	}
	if !strings.Contains(results[1], "blocked by the sandbox: ") || !strings.Contains(results[1], outside) || !strings.Contains(results[1], "exit code 1") {
		t.Errorf("refused write, the model reads: %q", results[1])
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("%s was written", outside)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.created) != 2 || strings.Join(c.killed, ",") != "term-1" {
		t.Fatalf("terminals created %d, killed %q", len(c.created), c.killed)
	}
}

// An editor's terminal runs the shell tool's command with ollm's
// environment by allow-list: with two dozen common credentials in both
// ollm's and the editor's environment, env in the terminal shows none of
// them, but what the user's tools.shell.allowEnv names, and PATH, HOME,
// LANG and TERM.
func TestACPTerminalEnvByAllowList(t *testing.T) {
	sandboxtest.SetCredentials(t) // the editor's environment (termClient starts from os.Environ)
	extra := map[string]string{"LANG": "C.UTF-8", "TERM": "xterm-256color"}
	for k, v := range sandboxtest.Credentials {
		extra[k] = v
	}
	e, b := boxSession(t, extra)
	e.write(filepath.Join(b.OllmHome, "profile.cue"), "model: name: \"test-model\"\ntools: shell: allowEnv: [\"ACME_DEPLOY_KEY\"]\n")
	c := newTermClient()
	conn := connectACPWith(t, e.f, c, sdk.ClientCapabilities{Terminal: true})
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: b.WS, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Reply(llmtest.ToolCallWithID("sh-1", "shell", map[string]any{"command": "env"}))
	e.srv.Reply(llmtest.Text("Done."))
	c.answers = []string{"allow_once"}
	if pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("show the environment")}); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	if len(c.created) != 1 {
		t.Fatalf("terminals created: %+v", c.created)
	}
	env := "\n" + c.output("term-1")
	if leaks := sandboxtest.Leaks(env, "ACME_DEPLOY_KEY"); len(leaks) > 0 {
		t.Errorf("the editor's terminal shows %v:\n%s", leaks, env)
	}
	for _, want := range []string{"ACME_DEPLOY_KEY=" + sandboxtest.Credentials["ACME_DEPLOY_KEY"], "PATH=" + os.Getenv("PATH"),
		"HOME=" + b.Home, "LANG=C.UTF-8", "TERM=xterm-256color"} {
		if !strings.Contains(env, "\n"+want+"\n") {
			t.Errorf("the terminal's env lacks %s:\n%s", want, env)
		}
	}
}

// A repository a command in the editor's terminal creates where there was
// none is moved aside when it ends, as in ollm's own shell: the user's
// git, run there afterwards outside any sandbox, does not run the
// fsmonitor command the model planted (checked by a marker file).
func TestACPTerminalNewGitDirIsHeld(t *testing.T) {
	e, b, c, conn, sid := termSession(t)
	marker := filepath.Join(outsideTemp(t, b), "PWNED")
	plant := "mkdir -p vendor/x && git -C vendor/x init -q && git -C vendor/x config core.fsmonitor 'touch " + marker + "' && echo planted"
	e.srv.Reply(llmtest.ToolCallWithID("sh-1", "shell", map[string]any{"command": plant}))
	e.srv.Reply(llmtest.Text("Done."))
	c.answers = []string{"allow_once"}
	pr, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: sid, Prompt: text("plant a repository")})
	if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	if len(c.created) != 1 {
		t.Fatalf("terminals created: %+v", c.created)
	}
	var result string
	for _, m := range e.srv.LastRequest().Messages {
		if m.Role == "tool" {
			result = m.Content
		}
	}
	if !strings.Contains(result, "planted") || !strings.Contains(result, "vendor/x/.git: a new git repository the command created, moved aside to .git.held-by-ollm") {
		t.Fatalf("tool result for the model: %q", result)
	}
	if _, err := os.Lstat(filepath.Join(b.WS, "vendor", "x", ".git")); !os.IsNotExist(err) {
		t.Fatalf("vendor/x/.git is still there: %v", err)
	}
	git := exec.Command("git", "status")
	git.Dir = filepath.Join(b.WS, "vendor", "x")
	git.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+b.WS)
	_, _ = git.CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the user's git ran the command planted from the editor's terminal")
	}
}
