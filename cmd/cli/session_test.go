package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollm/ollm/cmd/cli/tui"
	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// sessionEnv is an OLLM_HOME, a workspace and the fake Ollama, with a
// Factory over them, for tests that wire a real runtime and session.
type sessionEnv struct {
	t        *testing.T
	home, ws string
	srv      *llmtest.Ollama
	f        *Factory
	log      string // hooks append their names here
}

func newSessionEnv(t *testing.T) *sessionEnv {
	t.Helper()
	root := t.TempDir()
	e := &sessionEnv{t: t, home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws"), srv: llmtest.NewOllama(t),
		log: filepath.Join(root, "hooks.log")}
	for _, d := range []string{e.home, e.ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"OLLM_HOME": e.home, "OLLAMA_HOST": e.srv.URL, "PATH": os.Getenv("PATH")}
	io, _, _, _ := TestIO()
	e.f = &Factory{IO: io, Getenv: func(k string) string { return env[k] },
		Environ: func() []string {
			out := []string{}
			for k, v := range env {
				out = append(out, k+"="+v)
			}
			return out
		},
		Getwd: func() (string, error) { return e.ws, nil }, Now: time.Now, Context: context.Background()}
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"`+"\n")
	return e
}

func (e *sessionEnv) write(path, content string) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// logHook is a hook definition (CUE or JSON) that appends name to the log.
func (e *sessionEnv) logHook(name, event string) string {
	return `{"name": "` + name + `", "event": "` + event + `", "command": "bash", "args": ["-c", "cat >/dev/null; echo ` + name + ` >> ` + e.log + `"]}`
}

// extension writes a user extension (or workspace one, under ws) with a
// before_agent log hook and the given extra manifest fields.
func (e *sessionEnv) extension(dir, name, extra string) {
	hook := e.logHook(name, "before_agent")
	e.write(filepath.Join(dir, name, "manifest.json"), `{"name": "`+name+`", "version": "1.0.0", "description": "test extension",
  "hooks": {"before_agent": [`+hook+`]}`+extra+`}`)
}

func (e *sessionEnv) hookLog() []string {
	e.t.Helper()
	b, err := os.ReadFile(e.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return strings.Fields(string(b))
}

func (e *sessionEnv) runtime(o runtime.Options) *runtime.Runtime {
	e.t.Helper()
	rt, err := e.f.NewRuntime(context.Background(), o)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { rt.Close() })
	warns, err := rt.WaitServers(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	rt.Warnings = append(rt.Warnings, warns...)
	return rt
}

func (e *sessionEnv) session(rt *runtime.Runtime) *agent.Session {
	e.t.Helper()
	cfg := rt.AgentConfig()
	s, err := agent.New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func toolNames(req llmtest.ChatRequest) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

func skillNames(rt *runtime.Runtime) []string {
	var out []string
	for _, s := range rt.Skills.List() {
		out = append(out, s.Name)
	}
	return out
}

// /reload mid-session (issue 8): a session runs a turn; an extension
// (hook, skill, MCP server), a profile hook and a folder skill are added
// on disk; the reload reports the counts; the next turn sees all of it;
// removing the extension and reloading again takes it away.
func TestReloadMidSession(t *testing.T) {
	e := newSessionEnv(t)
	rt := e.runtime(runtime.Options{SessionID: "s1"})
	s := e.session(rt)
	ctx := context.Background()

	e.srv.Reply(llmtest.Text("one"))
	if _, err := s.Run(ctx, "first"); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(e.srv.LastRequest()); slices.Contains(got, "echo") {
		t.Fatalf("echo offered before the extension exists: %v", got)
	}
	if len(e.hookLog()) != 0 {
		t.Fatalf("hooks ran before any exists: %v", e.hookLog())
	}

	exts := filepath.Join(e.home, "extensions")
	e.extension(exts, "greeter", `, "skills": [{"name": "greet", "description": "greet someone", "prompt": "Say hello to {who}."}],
  "mcpServers": {"every": {"command": "node", "args": ["`+everythingScript(t)+`", "stdio"]}}`)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
hooks: definitions: [`+e.logHook("user-hook", "before_agent")+`]
`)
	e.write(filepath.Join(e.home, "skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: tidy up\n---\nTidy {path}.\n")

	began := time.Now()
	st, err := reloadSession(ctx, rt, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reload bringing in one extension with a server-everything MCP server: %s", time.Since(began))
	if st.Ext.Loaded != 1 || st.Ext.Ready != 1 || st.Ext.Failed != 0 || st.Stopped != 0 || len(st.Errors) != 0 {
		t.Fatalf("reload stats = %+v", st)
	}
	if st.Hooks != 2 || !strings.Contains(st.String(), "reloaded: stopped 0, loaded 1, ready 1, failed 0") {
		t.Fatalf("reload stats = %s", st)
	}
	if got := skillNames(rt); !slices.Contains(got, "greet") || !slices.Contains(got, "tidy") {
		t.Fatalf("skills after reload = %v", got)
	}

	e.srv.Reply(llmtest.Text("hello"))
	if _, err := s.RunSkill(ctx, rt.Skills, "greet", map[string]string{"who": "Ada"}); err != nil {
		t.Fatal(err)
	}
	req := e.srv.LastRequest()
	if got := toolNames(req); !slices.Contains(got, "echo") {
		t.Fatalf("the extension's MCP tools are not offered after reload: %v", got)
	}
	if last := req.Messages[len(req.Messages)-1]; last.Content != "Say hello to Ada." {
		t.Fatalf("last message = %q, want the rendered skill", last.Content)
	}
	if got := strings.Join(e.hookLog(), " "); got != "user-hook greeter" {
		t.Fatalf("hooks of the next turn = %q, want user-hook greeter", got)
	}

	// Take the extension away again.
	if err := os.RemoveAll(filepath.Join(exts, "greeter")); err != nil {
		t.Fatal(err)
	}
	began = time.Now()
	st, err = reloadSession(ctx, rt, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reload stopping that extension and its server: %s", time.Since(began))
	if st.Ext.Stopped != 1 || st.Ext.Loaded != 0 || st.Hooks != 1 {
		t.Fatalf("second reload = %s", st)
	}
	e.srv.Reply(llmtest.Text("bye"))
	if _, err := s.Run(ctx, "third"); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(e.srv.LastRequest()); slices.Contains(got, "echo") {
		t.Fatalf("echo still offered after the extension went: %v", got)
	}
	if slices.Contains(skillNames(rt), "greet") {
		t.Fatal("the extension's skill survived its removal")
	}
	if got := strings.Join(e.hookLog(), " "); got != "user-hook greeter user-hook" {
		t.Fatalf("hook log = %q", got)
	}
}

// A profile that no longer loads is a reload error; the session keeps
// what it had.
func TestReloadErrorKeepsTheRuntime(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
hooks: definitions: [`+e.logHook("user-hook", "before_agent")+`]
`)
	rt := e.runtime(runtime.Options{})
	s := e.session(rt)
	e.write(filepath.Join(e.home, "profile.cue"), "model: name: 42\n")
	if _, err := reloadSession(context.Background(), rt, s); err == nil || !strings.Contains(err.Error(), "profile.cue") {
		t.Fatalf("reload of a broken profile = %v, want an error naming the file", err)
	}
	e.srv.Reply(llmtest.Text("still here"))
	if _, err := s.Run(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	if got := e.hookLog(); len(got) != 1 || got[0] != "user-hook" {
		t.Fatalf("hooks after a failed reload = %v", got)
	}
}

// Issue 3 / design.md: hooks run builtin, user, user extensions,
// workspace, workspace extensions - although the runtime registers the
// profile's hooks before the extension manager enables extensions.
func TestHookOrderThroughTheRuntime(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
hooks: definitions: [`+e.logHook("user-1", "before_agent")+`, `+e.logHook("user-2", "before_agent")+`]
`)
	e.extension(filepath.Join(e.home, "extensions"), "uext", "")
	e.extension(filepath.Join(e.ws, ".ollm", "extensions"), "wext", "")
	e.write(filepath.Join(e.ws, "ollm.cue"), `hooks: definitions: [`+e.logHook("ws-1", "before_agent")+`]
`)
	if code := Run(e.f, []string{"trust", "--yes"}); code != ExitOK {
		t.Fatalf("ollm trust --yes exited %d", code)
	}
	rt := e.runtime(runtime.Options{})
	s := e.session(rt)
	e.srv.Reply(llmtest.Text("ok"))
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(e.hookLog(), " "); got != "user-1 user-2 uext ws-1 wext" {
		t.Fatalf("hook order = %q, want user-1 user-2 uext ws-1 wext", got)
	}
}

// Issue 6: an "always" answer is saved to the user profile; a new load of
// the profile has the rule, from the user layer.
func TestAlwaysAllowIsSavedToTheUserProfile(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
policy: rules: [{name: "writes", tool: "write_file", action: "ask"}]
`)
	var mu sync.Mutex
	var notices []string
	rt := e.runtime(runtime.Options{OnNotice: func(s string) { mu.Lock(); notices = append(notices, s); mu.Unlock() }})
	s := e.session(rt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := rt.Bus.Subscribe(ctx, bus.Answerer)
	go func() {
		for ev := range ch {
			if ev.Kind == bus.Requested {
				_ = rt.Bus.Respond(bus.Response{ID: ev.Request.ID, Answer: bus.AllowAlways})
			}
		}
	}()
	e.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "a.txt", "content": "x"}))
	e.srv.Reply(llmtest.Text("done"))
	if _, err := s.Run(context.Background(), "write it"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "a.txt")); err != nil {
		t.Fatalf("the allowed call did not run: %v", err)
	}
	r, err := e.f.LoadProfile()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for i, rule := range r.Profile.Policy.Rules {
		if rule.Tool == "write_file" && rule.Action == "allow" && rule.When == nil {
			found = r.RuleScopes[i] == schema.ScopeUser
		}
	}
	if !found {
		t.Fatalf("no user-scope allow rule for write_file after reload: %+v %v", r.Profile.Policy.Rules, r.RuleScopes)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 1 || !strings.Contains(notices[0], "saved 1 allow rule(s) for write_file to "+filepath.Join(e.home, "profile.cue")) {
		t.Fatalf("notices = %q", notices)
	}
}

// Issue 4: the prompts of a ready MCP server (server-everything) are
// skills named server:prompt, listed and renderable, and a session runs
// one.
func TestMCPPromptsAreSkills(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
mcp: servers: everything: {command: "node", args: ["`+everythingScript(t)+`", "stdio"]}
`)
	rt := e.runtime(runtime.Options{})
	var sk *struct{ name, source, ext string }
	for _, x := range rt.Skills.List() {
		if x.Extension == "everything" && x.Skill.Name == "args-prompt" {
			sk = &struct{ name, source, ext string }{x.Name, x.Source, x.Extension}
		}
	}
	if sk == nil || sk.source != "mcp" || sk.name != "args-prompt" {
		t.Fatalf("args-prompt is not an MCP skill: %+v in %v", sk, skillNames(rt))
	}
	got, err := rt.Skills.Render("everything:args-prompt", map[string]string{"city": "Lyon", "state": "Rhone"})
	if err != nil || got != "What's weather in Lyon, Rhone?" {
		t.Fatalf("render = %q, %v", got, err)
	}
	s := e.session(rt)
	e.srv.Reply(llmtest.Text("sunny"))
	if _, err := s.RunSkill(context.Background(), rt.Skills, "args-prompt", map[string]string{"city": "Oslo", "state": "NO"}); err != nil {
		t.Fatal(err)
	}
	req := e.srv.LastRequest()
	if last := req.Messages[len(req.Messages)-1].Content; last != "What's weather in Oslo, NO?" {
		t.Fatalf("prompt sent = %q", last)
	}
}

// Issue 4: a Gemini extension's excludeTools takes tools away from the
// model while it is enabled; a "tool(prefix)" entry denies those commands.
func TestGeminiExcludeToolsApply(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
policy: defaultAction: "allow"
`)
	e.write(filepath.Join(e.home, "extensions", "gem", "gemini-extension.json"),
		`{"name": "gem", "version": "1.0.0", "excludeTools": ["google_web_search", "write_file", "run_shell_command(rm -rf)"]}`)
	rt := e.runtime(runtime.Options{})
	s := e.session(rt)
	ctx := context.Background()
	e.srv.Reply(llmtest.ToolCall("shell", map[string]any{"command": "rm -rf build"}))
	e.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "w.txt", "content": "x"}))
	e.srv.Reply(llmtest.Text("ok"))
	if _, err := s.Run(ctx, "clean"); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.Requests()
	got := toolNames(reqs[0])
	if slices.Contains(got, "web_search") || slices.Contains(got, "write_file") || !slices.Contains(got, "shell") {
		t.Fatalf("tools offered with gem enabled = %v", got)
	}
	results := ""
	for _, m := range reqs[2].Messages {
		if m.Role == "tool" {
			results += m.Content + "\n"
		}
	}
	if !strings.Contains(results, "extension gem excludes `rm -rf` commands") || !strings.Contains(results, `there is no tool "write_file"`) {
		t.Fatalf("tool results = %s", results)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "w.txt")); err == nil {
		t.Fatal("an excluded tool ran")
	}

	if err := rt.Ext.Disable(ctx, "gem"); err != nil {
		t.Fatal(err)
	}
	e.srv.Reply(llmtest.Text("ok"))
	if _, err := s.Run(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(e.srv.LastRequest()); !slices.Contains(got, "web_search") || !slices.Contains(got, "write_file") {
		t.Fatalf("tools offered with gem disabled = %v", got)
	}
}

// Item 3: a workspace MCP server of an unapproved workspace is held back
// (listed as needing approval, its tools not offered) until the user
// approves it in the session; then it starts and its tools and prompts
// join. The approval list offers it one by one.
func TestWorkspaceServerApprovedInTheSession(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.ws, "ollm.cue"), `mcp: servers: everything: {command: "node", args: ["`+everythingScript(t)+`", "stdio"]}
`)
	rt := e.runtime(runtime.Options{})
	if ps := rt.PendingServers(); len(ps) != 1 || ps[0].Name != "everything" {
		t.Fatalf("pending servers = %+v", ps)
	}
	warned := strings.Join(rt.Warnings, "\n")
	if !strings.Contains(warned, "workspace MCP server everything (node ") || !strings.Contains(warned, "`ollm trust`") {
		t.Fatalf("warnings do not name the held server and ollm trust:\n%s", warned)
	}
	st := rt.MCPStatus()
	if len(st) != 1 || st[0].State != mcp.StateNeedsApproval {
		t.Fatalf("status = %+v", st)
	}
	if slices.ContainsFunc(rt.AgentTools().List(), func(x tool.Tool) bool { return x.Name() == "echo" }) {
		t.Fatal("a held server's tool is offered")
	}

	gate := newApprovalGate(context.Background(), func(string) {})
	gate.rt = rt
	items := gate.items()
	if len(items) != 1 || items[0].ID != "mcp:everything" || items[0].Kind != "mcp" || !strings.Contains(items[0].Detail, "stdio") {
		t.Fatalf("approval items = %+v", items)
	}
	if again := gate.items(); len(again) != 0 {
		t.Fatalf("asked twice: %+v", again)
	}

	got, err := rt.ApproveServer(context.Background(), "everything")
	if err != nil || got.State != mcp.StateReady {
		t.Fatalf("approve = %+v, %v", got, err)
	}
	s := e.session(rt)
	e.srv.Reply(llmtest.Text("ok"))
	if _, err := s.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if names := toolNames(e.srv.LastRequest()); !slices.Contains(names, "echo") {
		t.Fatalf("tools after approval = %v", names)
	}
	if !slices.Contains(skillNames(rt), "args-prompt") {
		t.Fatalf("the approved server's prompts are not skills: %v", skillNames(rt))
	}
	// The approval holds across a reload while the server is unchanged.
	rs, err := rt.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// (Its tools are in the tool cache now: it may still be starting.)
	if rs.Servers.Stopped != 1 || rs.Servers.Ready+rs.Servers.Cached != 1 || len(rs.Pending) != 0 {
		t.Fatalf("reload = %s", rs)
	}
}

// Untrusted hooks are listed at the session's start; a hook that wants
// to run waits for that answer, an approval is saved and the hook runs,
// a skipped one is not asked about again.
func TestStartApprovalOfHooks(t *testing.T) {
	e := newSessionEnv(t)
	flagExt := filepath.Join(t.TempDir(), "exts")
	e.extension(flagExt, "fx", "")
	e.extension(flagExt, "fy", "")
	e.f.Global.Ext = []string{filepath.Join(flagExt, "fx"), filepath.Join(flagExt, "fy")}
	gate := newApprovalGate(context.Background(), func(string) {})
	var asked atomic.Int32
	rt := e.runtime(runtime.Options{ApproveHook: gate.hook(func(context.Context, hooks.ApprovalRequest) (bool, error) {
		asked.Add(1)
		return false, nil
	})})
	gate.rt = rt
	items := gate.items()
	if len(items) != 2 || items[0].Kind != "hook" || !strings.Contains(items[0].Name, "fx/fx (before_agent, flag)") {
		t.Fatalf("items = %+v", items)
	}
	s := e.session(rt)
	e.srv.Reply(llmtest.Text("ok"))
	done := make(chan error, 1)
	go func() { _, err := s.Run(context.Background(), "go"); done <- err }()
	if err := gate.approve(items[0].ID, true); err != nil {
		t.Fatal(err)
	}
	if err := gate.approve(items[1].ID, false); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(e.hookLog(), " "); got != "fx" {
		t.Fatalf("hooks that ran = %q, want fx only", got)
	}
	e.srv.Reply(llmtest.Text("ok"))
	if _, err := s.Run(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	if asked.Load() != 0 || strings.Join(e.hookLog(), " ") != "fx fx" {
		t.Fatalf("asked %d times later; log %v", asked.Load(), e.hookLog())
	}
	if ph := rt.PendingHooks(); len(ph) != 1 || ph[0].Hook.Extension != "fy" {
		t.Fatalf("pending after the answers = %+v", ph)
	}

	// /reload keeps the --ext extensions (seed 002's hot reload) and the
	// answers: fx runs without a question, fy is still held back.
	st, err := reloadSession(context.Background(), rt, s)
	if err != nil {
		t.Fatal(err)
	}
	if st.Ext.Loaded != 2 || st.Ext.Failed != 0 {
		t.Fatalf("reload: %s", st)
	}
	e.srv.Reply(llmtest.Text("ok"))
	if _, err := s.Run(context.Background(), "after the reload"); err != nil {
		t.Fatal(err)
	}
	if asked.Load() != 0 || strings.Join(e.hookLog(), " ") != "fx fx fx" {
		t.Fatalf("after the reload: asked %d times; log %v", asked.Load(), e.hookLog())
	}
	if ph := rt.PendingHooks(); len(ph) != 1 || ph[0].Hook.Extension != "fy" {
		t.Fatalf("pending after the reload = %+v", ph)
	}
}

// `ollm --resume ID` in a terminal hands the id to the session: with no
// such transcript the error names it (the latest session would be another).
func TestRootResumeIDReachesTheSession(t *testing.T) {
	e := newSessionEnv(t)
	tr, err := agent.Create(filepath.Join(e.home, "sessions"), "20990101-000000-00000001", e.ws, "test-model", nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
	for _, args := range [][]string{{"--resume", "20200101-000000-deadbeef"}, {"--resume=20200101-000000-deadbeef"}} {
		io, _, _, errOut := TestIO()
		io.StdinTTY, io.StdoutTTY = true, true
		e.f.IO = io
		if code := Run(e.f, args); code != ExitConfig {
			t.Fatalf("%v: exit %d, want %d (%s)", args, code, ExitConfig, errOut)
		}
		if !strings.Contains(errOut.String(), "--resume: ") || !strings.Contains(errOut.String(), "20200101-000000-deadbeef") {
			t.Fatalf("%v: %s", args, errOut)
		}
	}
}

// The TUI's /model NAME, /clear and /reload run as session jobs through
// tui.AgentRuntime: the status line follows the model, the next request
// goes to it, /clear starts the conversation over, /reload reports its
// counts, a missing model is an error saying how to get it.
func TestSessionCommandsThroughTheTUI(t *testing.T) {
	e := newSessionEnv(t)
	e.srv.AddModel(llmtest.Model{Name: "other-model"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt := e.runtime(runtime.Options{})
	gate := newApprovalGate(ctx, func(string) {})
	gate.rt = rt
	ss := &sessionState{rt: rt, gate: gate}
	ui := tui.NewAgentRuntime(ctx, tui.AgentOptions{Bus: rt.Bus, Skills: rt.Skills, Status: ss.status, Job: ss.job,
		Command: func(ctx context.Context, c tui.Command) (string, error) { return sessionCommand(rt, c) }})
	defer ui.Close()
	ss.ui = ui
	cfg := rt.AgentConfig()
	cfg.OnEvent = ui.OnEvent
	s, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ui.Attach(s)
	// wait collects events up to the end of the work just started.
	wait := func() (notices []string, done tui.TurnDone) {
		for ev := range ui.Events() {
			switch ev := ev.(type) {
			case tui.Notice:
				notices = append(notices, ev.Text)
			case tui.TurnDone:
				return notices, ev
			}
		}
		t.Fatal("events closed")
		return
	}
	command := func(c tui.Command) ([]string, tui.TurnDone) {
		t.Helper()
		_, started, err := ui.Command(c)
		if err != nil || !started {
			t.Fatalf("/%s: started %v, %v", c.Kind, started, err)
		}
		return wait()
	}
	submit := func(p string) {
		t.Helper()
		e.srv.Reply(llmtest.Text("ok"))
		if err := ui.Submit(p); err != nil {
			t.Fatal(err)
		}
		if _, done := wait(); done.Err != "" {
			t.Fatal(done.Err)
		}
	}

	submit("one")
	if got := ui.Status().Model; got != "test-model" {
		t.Fatalf("status model = %q", got)
	}
	notes, done := command(tui.Command{Kind: tui.CmdModel, Args: []string{"other-model"}})
	if done.Err != "" || len(notes) != 1 || notes[0] != "model other-model for the rest of the session" {
		t.Fatalf("/model: %q %+v", notes, done)
	}
	if got := ui.Status().Model; got != "other-model" {
		t.Fatalf("status model after /model = %q", got)
	}
	submit("two")
	req := e.srv.LastRequest()
	// system prompt, one, the answer, two
	if req.Model != "other-model" || len(req.Messages) != 4 || req.Messages[0].Role != "system" {
		t.Fatalf("request after /model: model %q, %d messages", req.Model, len(req.Messages))
	}

	_, done = command(tui.Command{Kind: tui.CmdModel, Args: []string{"no-such-model"}})
	if !strings.Contains(done.Err, "ollama pull no-such-model") {
		t.Fatalf("/model of a missing model: %+v", done)
	}

	notes, _ = command(tui.Command{Kind: tui.CmdClear})
	if !slices.Contains(notes, "conversation cleared") {
		t.Fatalf("/clear notices = %q", notes)
	}
	submit("three")
	// /clear keeps only the system prompt
	if req := e.srv.LastRequest(); len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Content != "three" {
		t.Fatalf("request after /clear = %+v", req.Messages)
	}

	// /reload keeps the model chosen with /model.
	notes, done = command(tui.Command{Kind: tui.CmdReload})
	if done.Err != "" || len(notes) != 1 || !strings.HasPrefix(notes[0], "reloaded: stopped 0, loaded 0, ready 0, failed 0") {
		t.Fatalf("/reload: %q %+v", notes, done)
	}
	submit("four")
	if req := e.srv.LastRequest(); req.Model != "other-model" {
		t.Fatalf("model after /reload = %q", req.Model)
	}
}

// TestCloseStopsServersStillStarting: quitting a session while extension
// MCP servers are still starting (they never answer initialize) stops
// them all and does not wait for the connection timeout (10 minutes
// here), nor for a stdin grace per extension one after another.
func TestCloseStopsServersStillStarting(t *testing.T) {
	if _, err := exec.LookPath("pgrep"); err != nil {
		t.Fatal("pgrep (procps) is needed: apt-get install procps")
	}
	// a duration no other process on the machine uses, to find ours
	token := fmt.Sprintf("%d.%06d", 500+os.Getpid()%400, time.Now().Nanosecond()/1000)
	f := serverWorkspace(t, 6, 2, `{"command": "sleep", "args": ["`+token+`"]}`, 600000)
	count := func() int {
		out, _ := exec.Command("pgrep", "-c", "-f", "sleep "+token).Output()
		n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
		return n
	}
	rt, err := f.NewRuntime(context.Background(), runtime.Options{SessionID: "close"})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); count() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no MCP server process started within 30 s")
		}
	}
	done := make(chan error, 1)
	go func() { done <- rt.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Close waited for servers that never answer (connection timeout 10 min)")
	}
	if n := count(); n != 0 {
		t.Errorf("%d server processes (sleep %s) left after Close", n, token)
	}
}
