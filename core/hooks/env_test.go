package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/sandbox/sandboxtest"
	"github.com/ollm/ollm/schema"
)

// A hook process gets ollm's environment by allow-list: with two dozen
// common credentials in ollm's environment, the hook's own dump of env
// shows none of them, but PATH, HOME, LANG and TERM, ollm's variables,
// its extension's settings and its declared env (${VAR} taken from
// ollm's environment on purpose) are there.
func TestHookEnvByAllowList(t *testing.T) {
	sandboxtest.SetCredentials(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("TERM", "xterm-256color")
	dump := filepath.Join(t.TempDir(), "env")
	h := &Hook{Name: "dump", Event: BeforeTool, Scope: schema.ScopeUser, Extension: "deploy", Dir: t.TempDir(),
		Env: map[string]string{"DEPLOY_REGION": "eu-1"}, // the extension's settings
		Def: schema.Hook{Name: "dump", Command: script(t, "dump_env.sh"), Env: map[string]string{
			"DUMP_FILE": dump, "GH": "${GITHUB_TOKEN}", "LEVEL": "${LOG_LEVEL:-info}", "REGION": "${DEPLOY_REGION}"}}}
	e := newEngine(t, Options{Session: Session{ID: "s1", Cwd: home}}, h)
	if out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"}); out.Results[0].Failure != "" {
		t.Fatalf("the hook failed: %+v", out.Results[0])
	}
	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	env := "\n" + string(data)
	if leaks := sandboxtest.Leaks(env, "GITHUB_TOKEN"); len(leaks) > 0 || strings.Contains(env, "\nGITHUB_TOKEN=") {
		t.Errorf("the hook sees %v (or GITHUB_TOKEN by name):\n%s", leaks, env)
	}
	for _, want := range []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "TERM=xterm-256color",
		"OLLM_HOOK_EVENT=before_tool", "OLLM_PROJECT_DIR=" + home, "OLLM_EXTENSION=deploy", "DEPLOY_REGION=eu-1",
		"GH=" + sandboxtest.Credentials["GITHUB_TOKEN"], "LEVEL=info", "REGION=eu-1"} {
		if !strings.Contains(env, "\n"+want+"\n") {
			t.Errorf("the hook's env lacks %s:\n%s", want, env)
		}
	}
}

// A hook that cannot declare env (a Claude Code settings hook) is given
// what hooks.allowEnv names, exact or by glob, and still nothing else.
func TestHookAllowEnv(t *testing.T) {
	sandboxtest.SetCredentials(t)
	dump := filepath.Join(t.TempDir(), "env")
	t.Setenv("DUMP_FILE", dump)
	h := &Hook{Name: "dump", Event: BeforeTool, Scope: schema.ScopeUser, Extension: "claude",
		Def: schema.Hook{Name: "dump", Command: script(t, "dump_env.sh"), Dialect: DialectClaude}}
	e := newEngine(t, Options{AllowEnv: []string{"DUMP_FILE", "MYSQL_*", "CI_JOB_JWT"}}, h)
	if out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"}); out.Results[0].Failure != "" || out.Results[0].Skipped != "" {
		t.Fatalf("the hook did not run: %+v", out.Results[0])
	}
	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatalf("the hook did not get DUMP_FILE: %v", err)
	}
	env := "\n" + string(data)
	if leaks := sandboxtest.Leaks(env, "MYSQL_PWD", "CI_JOB_JWT"); len(leaks) > 0 {
		t.Errorf("the hook sees %v, which hooks.allowEnv does not name:\n%s", leaks, env)
	}
	for _, want := range []string{"MYSQL_PWD=" + sandboxtest.Credentials["MYSQL_PWD"], "CI_JOB_JWT=" + sandboxtest.Credentials["CI_JOB_JWT"]} {
		if !strings.Contains(env, "\n"+want+"\n") {
			t.Errorf("the hook's env lacks %s:\n%s", want, env)
		}
	}
}
