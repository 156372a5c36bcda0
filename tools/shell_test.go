package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

func shellFixture(t *testing.T) *fixture {
	return newFixture(t, func(c *Config) {
		c.Tools.Shell = schema.Shell{Timeout: 60000, AllowEnv: []string{"ALLOWED_TOKEN"}}
		c.Environ = func() []string {
			return []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "KEEP_ME=1", "GITHUB_TOKEN=ghp_x", "OPENAI_API_KEY=sk", "DB_PASSWORD=pw", "AWS_SECRET_ACCESS_KEY=a", "ALLOWED_TOKEN=ok"}
		}
	})
}

func TestShellOutputExitCodeAndEnv(t *testing.T) {
	f := shellFixture(t)
	f.write(map[string]string{"sub/file.txt": "x"})
	got := f.ok("shell", `{"command":"echo hello; ls","directory":"sub"}`)
	if got != "Exit code: 0\nOutput:\nhello\nfile.txt\n" {
		t.Fatalf("shell = %q", got)
	}
	if got := f.ok("shell", `{"command":"pwd","directory":"sub"}`); !strings.HasSuffix(got, "/ws/sub\n") {
		t.Fatalf("pwd = %q", got)
	}
	env := f.ok("shell", `{"command":"env | sort"}`)
	for _, want := range []string{"LANG=C.UTF-8", "ALLOWED_TOKEN=ok"} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %s:\n%s", want, env)
		}
	}
	for _, gone := range []string{"KEEP_ME", "GITHUB_TOKEN", "OPENAI_API_KEY", "DB_PASSWORD", "AWS_SECRET"} {
		if strings.Contains(env, gone) {
			t.Errorf("env leaks %s:\n%s", gone, env)
		}
	}
	res := f.fails("shell", `{"command":"echo out; echo 'it broke' >&2; exit 3"}`, tool.ErrExec, "exit code 3: it broke")
	if !strings.Contains(res.ForModel, "Exit code: 3") || !strings.Contains(res.ForModel, "Stderr:\nit broke") || res.Data.(map[string]any)["exitCode"] != 3 {
		t.Fatalf("failed command result = %+v", res)
	}
	f.fails("shell", `{"command":"true","directory":"nope"}`, tool.ErrInvalidParams, `parameter "directory"`)
	c := f.build("shell", `{"command":"rm -rf build"}`).Confirmation()
	if c.Kind != tool.KindExecute || c.Risk != tool.RiskHigh || c.Command != "rm -rf build" {
		t.Fatalf("confirmation = %+v", c)
	}
}

// TestShellStreams proves output arrives while the command runs: the
// command blocks on a FIFO that only the output callback opens, after it
// has seen the first line.
func TestShellStreams(t *testing.T) {
	f := shellFixture(t)
	fifo := filepath.Join(f.root, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o600))
	inv := f.build("shell", `{"command":"echo first; read line < fifo; echo second $line","timeout":20000}`)
	var (
		mu     sync.Mutex
		chunks []string
		once   sync.Once
	)
	res, err := inv.Execute(t.Context(), func(c tool.Chunk) {
		mu.Lock()
		chunks = append(chunks, c.Text)
		mu.Unlock()
		if strings.Contains(c.Text, "first") {
			once.Do(func() {
				go func() {
					w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
					if err == nil {
						w.WriteString("go\n")
						w.Close()
					}
				}()
			})
		}
	})
	if err != nil || res.Error != nil {
		t.Fatalf("streamed command: %+v %v", res, err)
	}
	if joined := strings.Join(chunks, ""); joined != "first\nsecond go\n" {
		t.Fatalf("chunks %q", chunks)
	}
}

func TestShellTimeoutKillsProcessGroup(t *testing.T) {
	f := shellFixture(t)
	res := f.fails("shell", `{"command":"sleep 30 & echo $! > child.pid; wait","timeout":300}`, tool.ErrTimeout, "timed out after")
	if !strings.Contains(res.Error.Message, "(timeout 300ms)") {
		t.Fatalf("timeout message %q", res.Error.Message)
	}
	waitGone(t, f, "child.pid")
	res = f.fails("shell", `{"command":"echo started; sleep 30","idleTimeout":300}`, tool.ErrTimeout, "no output for 300ms (idle timeout)")
	if !strings.Contains(res.ForModel, "started") {
		t.Fatalf("idle timeout lost the output: %q", res.ForModel)
	}
	ctx, cancel := context.WithCancel(t.Context())
	inv := f.build("shell", `{"command":"echo x; sleep 30"}`)
	var once sync.Once
	res, _ = inv.Execute(ctx, func(tool.Chunk) { once.Do(cancel) })
	if res.Error == nil || res.Error.Kind != tool.ErrCancelled {
		t.Fatalf("cancelled command = %+v", res)
	}
}

// waitGone waits until the process whose pid is in file has died (a kill
// that did not work fails the test when the 30 s sleep would still run).
func waitGone(t *testing.T, f *fixture, file string) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(f.read(file)))
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("process %d outlived the kill of its group", pid)
}

func TestShellBackgroundJobs(t *testing.T) {
	f := shellFixture(t)
	res := f.call("shell", `{"command":"echo $$ > job.pid; echo hello; sleep 30","background":true}`)
	if res.Error != nil || res.Data.(map[string]any)["id"] != "job-1" {
		t.Fatalf("background start = %+v", res)
	}
	var out string
	for range 400 {
		out = f.ok("shell_output", `{"id":"job-1"}`)
		if strings.Contains(out, "Output:\nhello") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(out, "job-1 (") || !strings.Contains(out, "running") || !strings.Contains(out, "Output:\nhello\n") {
		t.Fatalf("shell_output = %q", out)
	}
	if again := f.ok("shell_output", `{"id":"job-1"}`); !strings.Contains(again, "(no new output)") {
		t.Fatalf("second read repeated output: %q", again)
	}
	if killed := f.ok("shell_kill", `{"id":"job-1"}`); !strings.Contains(killed, ": killed") {
		t.Fatalf("shell_kill = %q", killed)
	}
	waitGone(t, f, "job.pid")
	f.call("shell", `{"command":"echo finished; exit 4","background":true}`)
	if done := f.ok("shell_output", `{"id":"job-2","wait":20000}`); !strings.Contains(done, "exited with code 4") || !strings.Contains(done, "finished") {
		t.Fatalf("finished job = %q", done)
	}
	f.fails("shell_output", `{"id":"job-9"}`, tool.ErrNotFound, `no background job "job-9"; known jobs: [job-1 job-2]`)
	f.fails("shell_kill", `{"id":"job-9"}`, tool.ErrNotFound, `no background job "job-9"`)
}

// A session's job table kills its background jobs when the session ends.
func TestJobsKillAll(t *testing.T) {
	jobs := NewJobs()
	f := newFixture(t, func(c *Config) { c.Jobs = jobs })
	if res := f.call("shell", `{"command":"echo $$ > job.pid; sleep 30","background":true}`); res.Error != nil {
		t.Fatalf("background start = %+v", res)
	}
	for range 400 {
		if b, err := os.ReadFile(filepath.Join(f.root, "job.pid")); err == nil && strings.HasSuffix(string(b), "\n") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	jobs.KillAll()
	waitGone(t, f, "job.pid")
}
