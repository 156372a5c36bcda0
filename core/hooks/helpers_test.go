package hooks

import (
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/schema"
)

func defWith(matcher string) schema.Hook { return schema.Hook{Matcher: matcher} }

// script returns the absolute path of a testdata script.
func script(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// userHook is a trusted hook running a testdata script.
func userHook(t testing.TB, name string, ev Event, file string, args ...string) *Hook {
	return &Hook{Name: name, Event: ev, Scope: schema.ScopeUser,
		Def: schema.Hook{Name: name, Command: script(t, file), Args: args}}
}

// newEngine builds an enabled engine over hooks and closes it at the end.
func newEngine(t testing.TB, opts Options, hooks ...*Hook) *Engine {
	t.Helper()
	opts.Enabled = true
	if opts.LogDir == "" {
		opts.LogDir = t.TempDir()
	}
	if opts.Session.ID == "" {
		opts.Session = Session{ID: "sess-1", Cwd: t.TempDir()}
	}
	passTestEnv(hooks...)
	e := New(NewRegistry(hooks...), opts)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// testEnv are the variables tests set (t.Setenv) to tell a hook script
// where to write. A hook gets ollm's environment by allow-list only
// (sandbox.Environ), so each hook declares them, as a user would:
// env: {PID_FILE: "${PID_FILE}"}.
var testEnv = []string{"ORDER_FILE", "PID_FILE", "SHUTDOWN_FILE", "EVENT_LOG"}

func passTestEnv(hooks ...*Hook) {
	for _, h := range hooks {
		env := maps.Clone(h.Def.Env)
		if env == nil {
			env = map[string]string{}
		}
		for _, k := range testEnv {
			if _, set := env[k]; !set {
				env[k] = "${" + k + "}"
			}
		}
		h.Def.Env = env
	}
}

// pidFile points PID_FILE at a fresh file and returns a reader of the
// pids scripts wrote into it.
func pidFile(t *testing.T) func() []int {
	p := filepath.Join(t.TempDir(), "pids")
	t.Setenv("PID_FILE", p)
	return func() []int {
		data, _ := os.ReadFile(p)
		var pids []int
		for _, f := range strings.Fields(string(data)) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("pid file: %v", err)
			}
			pids = append(pids, n)
		}
		return pids
	}
}

// alive reports whether pid is a live (non-zombie) process.
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// assertGone fails unless every pid has exited. Killed processes are
// reaped by init asynchronously, so it allows a few seconds for that.
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	if len(pids) == 0 {
		t.Fatal("no pids recorded: the script did not run")
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d is still alive", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
