package tools

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/sandbox/sandboxtest"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// sandboxFixture is a shell under the default sandbox, with a fake home
// holding a key and a directory outside both. None is under /tmp, which
// workspace-write may write.
func sandboxFixture(t *testing.T) (f *fixture, outside, key string) {
	t.Helper()
	b := sandboxtest.New(t)
	key = filepath.Join(b.Home, ".ssh", "id_rsa")
	mustMkdir(t, filepath.Dir(key))
	if err := os.WriteFile(key, []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := sandbox.Resolve(schema.Sandbox{}, sandbox.ShellDefault, b.Env())
	f = newFixture(t, func(c *Config) {
		c.Root, c.Sandbox = b.WS, &p
		c.Tools.Shell = schema.Shell{Timeout: 60000}
	})
	f.root = b.WS
	return f, b.Outside, key
}

// The model sees why the sandbox stopped a command, and which sandbox it
// ran in.
func TestShellSandboxDenialsAreExplained(t *testing.T) {
	f, outside, key := sandboxFixture(t)
	res := f.fails("shell", `{"command":"echo x > `+outside+`/x.txt"}`, tool.ErrExec, "blocked by the sandbox: write to "+outside+"/x.txt outside the workspace (workspace-write, no network")
	if !strings.Contains(res.ForModel, "blocked by the sandbox: write to") {
		t.Errorf("the model is not told: %s", res.ForModel)
	}
	if d := res.Data.(map[string]any); d["sandbox"] != "workspace-write, no network" {
		t.Errorf("sandbox = %v", d["sandbox"])
	}
	f.fails("shell", `{"command":"cat `+key+`"}`, tool.ErrExec, "blocked by the sandbox: "+key+" is hidden from sandboxed commands")
	f.write(map[string]string{"ollm.cue": "version: 1\n"})
	f.fails("shell", `{"command":"echo 'policy: mode: \"yolo\"' >> ollm.cue"}`, tool.ErrExec, "ollm.cue decides what ollm trusts and runs; it is read-only inside the sandbox")
	if got := f.read("ollm.cue"); got != "version: 1\n" {
		t.Errorf("ollm.cue = %q", got)
	}
	// Inside the workspace the shell works as before.
	if out := f.ok("shell", `{"command":"echo hi > made.txt && cat made.txt"}`); !strings.Contains(out, "hi") {
		t.Errorf("workspace write: %s", out)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	connect := fmt.Sprintf(`python3 -c \"import socket; socket.create_connection(('127.0.0.1', %d), timeout=2)\"`, ln.Addr().(*net.TCPAddr).Port)
	f.fails("shell", `{"command":"`+connect+`"}`, tool.ErrExec, "blocked by the sandbox: the network is off for shell commands")
}

// Background jobs run in the same sandbox.
func TestShellSandboxBackgroundJob(t *testing.T) {
	f, outside, _ := sandboxFixture(t)
	out := f.ok("shell", `{"command":"echo x > `+outside+`/job.txt; echo done > job.out","background":true}`)
	id := between(out, "job-")
	_ = f.call("shell_output", `{"id":"job-`+id+`","wait":5000}`)
	if _, err := os.Stat(filepath.Join(outside, "job.txt")); err == nil {
		t.Fatal("a background job wrote outside the workspace")
	}
	if got := f.read("job.out"); got != "done\n" {
		t.Errorf("job.out = %q (job output: %s)", got, out)
	}
}

func between(s, prefix string) string {
	i := strings.Index(s, prefix)
	if i < 0 {
		return ""
	}
	s = s[i+len(prefix):]
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return s[:j]
}

// A trust file that did not exist cannot be mounted read-only: creating it
// works, and the result says so.
func TestShellSandboxCreatedTrustFileIsReported(t *testing.T) {
	f, _, _ := sandboxFixture(t)
	f.write(map[string]string{"ollm.cue": "version: 1\n"})
	out := f.ok("shell", `{"command":"mkdir .claude && echo '{}' > .claude/settings.json && echo created"}`)
	if !strings.Contains(out, "warning: the command created .claude") {
		t.Errorf("no warning: %s", out)
	}
	if out := f.ok("shell", `{"command":"echo again"}`); strings.Contains(out, "warning: the command created") {
		t.Errorf("warned again: %s", out)
	}
}

// A repository the command created where there was none (the kernel has
// no rule per name to stop it) is moved aside when the command ends: the
// user's git, run there afterwards outside any sandbox, does not run the
// fsmonitor command the model planted. Checked by a marker file.
func TestShellSandboxNewGitDirIsHeld(t *testing.T) {
	f, outside, _ := sandboxFixture(t)
	marker := filepath.Join(outside, "PWNED")
	plant := "mkdir -p vendor/x && git -C vendor/x init -q && git -C vendor/x config core.fsmonitor 'touch " + marker + "' && echo planted"
	out := f.ok("shell", `{"command":"`+plant+`"}`)
	if !strings.Contains(out, "planted") || !strings.Contains(out, "vendor/x/.git: a new git repository the command created, moved aside to .git"+sandbox.HeldSuffix) {
		t.Fatalf("the result does not say the repository was moved aside: %s", out)
	}
	if _, err := os.Lstat(filepath.Join(f.root, "vendor", "x", ".git")); !os.IsNotExist(err) {
		t.Fatalf("vendor/x/.git is still there: %v", err)
	}
	// The user runs git there, unsandboxed, as they would after ollm.
	git := exec.Command("git", "status")
	git.Dir = filepath.Join(f.root, "vendor", "x")
	git.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+f.root)
	_, _ = git.CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the user's git ran the command the sandboxed shell planted")
	}
	// Its content is kept beside it, for the user to look at.
	if _, err := os.Stat(filepath.Join(f.root, "vendor", "x", ".git"+sandbox.HeldSuffix, "config")); err != nil {
		t.Errorf("the held repository: %v", err)
	}
	// A repository that was there before the command is left alone.
	out = f.ok("shell", `{"command":"git -C vendor/x status >/dev/null 2>&1; echo ok"}`)
	if strings.Contains(out, "moved aside") {
		t.Errorf("held again: %q", out)
	}
}

func TestExplainDenial(t *testing.T) {
	p := &sandbox.Policy{Preset: "workspace-write", Write: []string{"/ws", "/tmp"}, Read: []string{"/"}, Protect: []string{"/ws/ollm.cue"}}
	for stderr, want := range map[string]string{
		"sh: 1: cannot create /etc/x: Permission denied":                                       "write to /etc/x outside the workspace",
		"PermissionError: [Errno 13] Permission denied: '/etc/x'":                              "write to /etc/x outside the workspace",
		"rm: cannot remove 'ollm.cue': Device or resource busy":                                "/ws/ollm.cue decides what ollm trusts",
		"  File \"x.py\", in create_connection\nPermissionError: [Errno 13] Permission denied": "the network is off",
		"curl: (7) Failed to connect to 127.0.0.1 port 80: Permission denied":                  "the network is off",
		"curl: (6) Could not resolve host: example.invalid":                                    "the network is off",
		"all fine": "",
	} {
		got := explainDenial(stderr, p, "/ws")
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%q: got %q, want %q", stderr, got, want)
		}
	}
}

// A directory shaped like a bare repository is a repository to git: one
// the command created, with a work tree and an fsmonitor in its config,
// would run the planted command when the user runs git status there. Its
// HEAD is moved aside when the command ends.
func TestShellSandboxNewBareRepositoryIsHeld(t *testing.T) {
	f, outside, _ := sandboxFixture(t)
	marker := filepath.Join(outside, "PWNED")
	plant := "git init -q --bare evil && git -C evil config core.bare false && git -C evil config core.worktree .. && git -C evil config core.fsmonitor 'touch " + marker + "' && echo planted"
	out := f.ok("shell", `{"command":"`+plant+`"}`)
	if !strings.Contains(out, "planted") || !strings.Contains(out, "evil: a new directory shaped like a bare git repository the command created; its HEAD was moved aside to HEAD"+sandbox.HeldSuffix) {
		t.Fatalf("the result does not say the repository was made harmless: %s", out)
	}
	git := exec.Command("git", "status")
	git.Dir = filepath.Join(f.root, "evil")
	git.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+f.root)
	_, _ = git.CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the user's git ran the command the sandboxed shell planted in a bare repository")
	}
}

// The .git list found after one call is the next call's "before": a
// repository the user made between the calls is left alone (its inode
// changed before the command started), one the command makes is held.
func TestShellSandboxGitListFromThePreviousCall(t *testing.T) {
	f, outside, _ := sandboxFixture(t)
	f.ok("shell", `{"command":"echo first"}`)
	user := exec.Command("git", "init", "-q", filepath.Join(f.root, "mine"))
	if out, err := user.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	time.Sleep(2 * ctimeSlack) // made well before the next call starts
	marker := filepath.Join(outside, "PWNED")
	plant := "mkdir -p vendor/y && git -C vendor/y init -q && git -C vendor/y config core.fsmonitor 'touch " + marker + "' && echo planted"
	out := f.ok("shell", `{"command":"`+plant+`"}`)
	if !strings.Contains(out, "vendor/y/.git: a new git repository the command created, moved aside") {
		t.Fatalf("the planted repository was not held: %s", out)
	}
	if strings.Contains(out, "mine/.git") {
		t.Fatalf("the user's repository was taken for the command's: %s", out)
	}
	if _, err := os.Stat(filepath.Join(f.root, "mine", ".git", "HEAD")); err != nil {
		t.Fatalf("the user's repository: %v", err)
	}
	// And the next call knows both: nothing held again.
	if out := f.ok("shell", `{"command":"echo third"}`); strings.Contains(out, "moved aside") {
		t.Fatalf("held again: %s", out)
	}
}

// A .git a background job creates is moved aside when the job ends, and
// its output says so.
func TestShellSandboxBackgroundJobNewGitDirIsHeld(t *testing.T) {
	f, outside, _ := sandboxFixture(t)
	marker := filepath.Join(outside, "PWNED")
	plant := "mkdir -p bg/x && git -C bg/x init -q && git -C bg/x config core.fsmonitor 'touch " + marker + "' && echo planted"
	out := f.ok("shell", `{"command":"`+plant+`","background":true}`)
	id := between(out, "job-")
	done := f.ok("shell_output", `{"id":"job-`+id+`","wait":20000}`)
	if !strings.Contains(done, "planted") || !strings.Contains(done, "bg/x/.git: a new git repository the command created, moved aside") {
		t.Fatalf("the job's output does not say the repository was moved aside: %s", done)
	}
	git := exec.Command("git", "status")
	git.Dir = filepath.Join(f.root, "bg", "x")
	git.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+f.root)
	_, _ = git.CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the user's git ran the command the background job planted")
	}
}

// A repository the user makes in the workspace during a session is the
// shell's to protect from the next command on: the policy of the
// session's start named no submodule, so a submodule's git directory
// (whose config git reads when the user runs git status in the
// superproject) would stay writable.
func TestShellSandboxRepositoryMadeDuringTheSession(t *testing.T) {
	b := sandboxtest.New(t)
	start := sandbox.Resolve(schema.Sandbox{}, sandbox.ShellDefault, b.Env())
	f := newFixture(t, func(c *Config) {
		c.Root, c.Sandbox = b.WS, &start
		c.SandboxNow = func() *sandbox.Policy {
			p := sandbox.Resolve(schema.Sandbox{}, sandbox.ShellDefault, b.Env())
			return &p
		}
		c.Tools.Shell = schema.Shell{Timeout: 60000}
	})
	f.root = b.WS
	f.ok("shell", `{"command":"echo before > notes.txt"}`)
	// The user makes the workspace a repository with a submodule.
	git := exec.Command("git", "init", "-q", b.WS)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	mod := filepath.Join(b.WS, ".git", "modules", "lib")
	for _, d := range []string{"objects", "refs", "hooks"} {
		mustMkdir(t, filepath.Join(mod, d))
	}
	mustMkdir(t, filepath.Join(b.WS, "lib"))
	config := "[core]\n\tbare = false\n\tworktree = ../../../lib\n"
	for p, data := range map[string]string{
		filepath.Join(mod, "HEAD"):         "ref: refs/heads/main\n",
		filepath.Join(mod, "config"):       config,
		filepath.Join(b.WS, "lib", ".git"): "gitdir: ../.git/modules/lib\n",
		filepath.Join(b.WS, ".gitmodules"): "[submodule \"lib\"]\n\tpath = lib\n\turl = ./lib\n",
	} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := f.call("shell", `{"command":"printf '\\tfsmonitor = touch PWNED\\n' >> .git/modules/lib/config; echo end"}`)
	if now, err := os.ReadFile(filepath.Join(mod, "config")); err != nil || string(now) != config {
		t.Errorf("the submodule's config is %q (%v):\n%s", now, err, out.ForModel)
	}
}
