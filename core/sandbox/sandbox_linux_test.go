package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/schema"
)

// box is a workspace, a fake home with a key, and a directory outside
// both, none of them under /tmp (which workspace-write may write).
type box struct {
	root, ws, home, outside, ollmHome string
}

func newBox(t *testing.T) *box {
	t.Helper()
	if !Probe().Available() {
		t.Fatalf("this machine cannot sandbox: %s (the project's machines have Landlock; see docs/security.md)", Probe().Reason)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp(wd, ".sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	b := &box{root: root, ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"), outside: filepath.Join(root, "outside"), ollmHome: filepath.Join(root, "ollm-home")}
	for _, f := range []struct{ path, data string }{
		{filepath.Join(b.ws, "ollm.cue"), "version: 1\n"},
		{filepath.Join(b.ws, "notes.txt"), "hello\n"},
		{filepath.Join(b.home, ".ssh", "id_rsa"), "PRIVATE KEY\n"},
		{filepath.Join(b.outside, "keep.txt"), "outside\n"},
		{filepath.Join(b.ollmHome, "profile.cue"), "version: 1\n"},
	} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, []byte(f.data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func (b *box) env() Env {
	return Env{Workspace: b.ws, Home: b.home, OllmHome: b.ollmHome, Temp: []string{filepath.Join(b.root, "tmp")}, Cache: testCache(), Getenv: func(k string) string {
		switch k {
		case "GOCACHE", "GOMODCACHE", "GOPATH":
			out, _ := exec.Command("go", "env", k).Output()
			return strings.TrimSpace(string(out))
		}
		return ""
	}}
}

// testCache is sandboxtest.SharedCache (which this package's own tests
// cannot import).
func testCache() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("ollm-sandbox-test-cache-%d", os.Getuid()))
}

// run runs argv in the workspace under the shell's default sandbox.
func (b *box) run(t *testing.T, s schema.Sandbox, argv ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = b.ws
	tmp := filepath.Join(b.root, "tmp") // the only temporary directory the box may write
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if err := Wrap(cmd, Resolve(s, ShellDefault, b.env())); err != nil {
		t.Fatal(err)
	}
	out, err := CombinedForTest(cmd)
	return string(out), err
}

// viaTrampoline makes the tests start sandboxed processes through the
// trampoline (ollm's re-exec, as in an editor's terminal) instead of
// Start's spawn (the shell tool, hooks, servers): TestTheTrampolineHolds
// runs the boundary tests again that way.
var viaTrampoline = os.Getenv("OLLM_TEST_SANDBOX_TRAMPOLINE") == "1"

// TestTheTrampolineHolds runs the boundary tests again with every process
// started through the trampoline: both ways must hold.
func TestTheTrampolineHolds(t *testing.T) {
	if viaTrampoline {
		return // this is the run it starts
	}
	names := []string{"TestEscapesFail", "TestWorkspaceWrites", "TestSecretsInsideTheWorkspace", "TestMissingProgram",
		"TestNetwork", "TestNetworkOffMeansOff", "TestNoTerminal", "TestNoSignalsOut", "TestGitDirsCannotBeReplacedOrEdited",
		"TestExplainAgreesWithTheKernel", "TestDevHomeCredentialsAreHidden", "TestDevHomeExecutedCachesAreReadOnly",
		"TestSymlinkedSecretLocation", "TestOllmDirIsProtectedButExtensionData", "TestAllowOwnFilesGrantsOnlyTheScriptsDirectory"}
	cmd := exec.Command(os.Args[0], "-test.run", "^("+strings.Join(names, "|")+")$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "OLLM_TEST_SANDBOX_TRAMPOLINE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("through the trampoline: %v\n%s", err, out)
	}
	for _, name := range names {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("through the trampoline %s did not pass:\n%s", name, out)
		}
	}
}

// Whatever the command, a write outside the workspace, a read of the fake
// home's key and an edit of ollm.cue fail.
func TestEscapesFail(t *testing.T) {
	b := newBox(t)
	if err := copyFile("/bin/rm", filepath.Join(b.ws, "myrm")); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(b.outside, "keep.txt")
	key := filepath.Join(b.home, ".ssh", "id_rsa")
	cue := filepath.Join(b.ws, "ollm.cue")
	cases := map[string][]string{
		"sh write outside":     {"sh", "-c", "echo x > " + filepath.Join(b.outside, "new.txt")},
		"sh rm outside":        {"sh", "-c", "rm -f " + target},
		"python3 remove":       {"python3", "-c", fmt.Sprintf("import os; os.remove(%q)", target)},
		"perl unlink":          {"perl", "-e", fmt.Sprintf("unlink(%q) or die \"$!\"", target)},
		"pipe into sh":         {"sh", "-c", "echo 'rm -f " + target + "' | sh"},
		"copied rm":            {"./myrm", "-f", target},
		"read the key":         {"cat", key},
		"python3 read the key": {"python3", "-c", fmt.Sprintf("print(open(%q).read())", key)},
		"append ollm.cue":      {"sh", "-c", "echo 'policy: mode: \"yolo\"' >> ollm.cue"},
		"replace ollm.cue":     {"sh", "-c", "echo x > new.cue && mv new.cue ollm.cue"},
		"remove ollm.cue":      {"rm", "-f", "ollm.cue"},
		"write OLLM_HOME":      {"sh", "-c", "echo x >> " + filepath.Join(b.ollmHome, "profile.cue")},
	}
	for name, argv := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := b.run(t, schema.Sandbox{}, argv...)
			if err == nil && !strings.Contains(name, "read") {
				t.Errorf("%q succeeded: %s", argv, out)
			}
			if strings.Contains(out, "PRIVATE KEY") {
				t.Errorf("%q read the key: %s", argv, out)
			}
		})
	}
	if data, _ := os.ReadFile(target); string(data) != "outside\n" {
		t.Errorf("outside file = %q", data)
	}
	if _, err := os.Stat(filepath.Join(b.outside, "new.txt")); err == nil {
		t.Error("a file was created outside the workspace")
	}
	if data, _ := os.ReadFile(cue); string(data) != "version: 1\n" {
		t.Errorf("ollm.cue = %q", data)
	}
}

// Inside the workspace the same commands work, so the failures above are
// the sandbox's, not the commands'.
func TestWorkspaceWrites(t *testing.T) {
	b := newBox(t)
	out, err := b.run(t, schema.Sandbox{}, "sh", "-c", "echo y > made.txt && rm notes.txt && mkdir -p d/e && echo z > d/e/f && cat made.txt")
	if err != nil || out != "y\n" {
		t.Fatalf("workspace write: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(b.ws, "notes.txt")); !os.IsNotExist(err) {
		t.Error("notes.txt still there")
	}
	// read-only: nothing in the workspace is written.
	if out, err := b.run(t, schema.Sandbox{Preset: schema.SandboxReadOnly}, "sh", "-c", "echo y > ro.txt"); err == nil {
		t.Errorf("read-only wrote: %s", out)
	}
	// off: no sandbox at all.
	off := filepath.Join(b.outside, "off.txt")
	if out, err := b.run(t, schema.Sandbox{Preset: schema.SandboxOff}, "sh", "-c", "echo y > "+off); err != nil {
		t.Errorf("off: %v %s", err, out)
	}
}

// With the network off a TCP connect to a loopback port fails (the process
// has a network namespace of its own); with it on, it works.
func TestNetwork(t *testing.T) {
	b := newBox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hi\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf("import socket; s = socket.create_connection(('127.0.0.1', %d), timeout=2); print(s.recv(3).decode())", port)
	if out, err := b.run(t, schema.Sandbox{}, "python3", "-c", connect); err == nil {
		t.Errorf("connected with the network off: %s", out)
	}
	if out, err := b.run(t, schema.Sandbox{}, "bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port)); err == nil {
		t.Errorf("bash connected with the network off: %s", out)
	}
	on := true
	if out, err := b.run(t, schema.Sandbox{Network: &on}, "python3", "-c", connect); err != nil || strings.TrimSpace(out) != "hi" {
		t.Errorf("network on: %v %q", err, out)
	}

	// A datagram (DNS is one) does not leave either: without network the
	// process is in ollm's shared network namespace, isolate or not.
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	send := fmt.Sprintf("import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', %d))", udp.LocalAddr().(*net.UDPAddr).Port)
	for _, s := range []schema.Sandbox{{Isolate: true}, {}} {
		if out, err := b.run(t, s, "python3", "-c", send); err != nil {
			t.Fatalf("send: %v %s", err, out)
		}
	}
	if out, err := b.run(t, schema.Sandbox{Network: &on}, "python3", "-c", send); err != nil {
		t.Fatalf("send: %v %s", err, out)
	}
	// The datagram of the process with network arrives; none before it.
	udp.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 8)
	if _, _, err := udp.ReadFrom(buf); err != nil {
		t.Fatalf("the datagram sent with the network on did not arrive: %v", err)
	}
	udp.SetReadDeadline(time.Now()) // loopback queues a datagram as it is sent
	if _, _, err := udp.ReadFrom(buf); err == nil {
		t.Error("two datagrams arrived: one left a sandbox without network")
	}
	if out, err := b.run(t, schema.Sandbox{Isolate: true}, "python3", "-c", connect); err == nil {
		t.Errorf("isolated TCP connect worked: %s", out)
	}
}

// go test of a small module and git commit work under the default shell
// sandbox.
func TestBuildsAndCommitsWork(t *testing.T) {
	b := newBox(t)
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.21\n",
		"m.go":        "package m\n\nfunc Add(a, b int) int { return a + b }\n",
		"m_test.go":   "package m\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n",
		".gitignore":  "myrm\nout/\n",
		"sub/file.md": "x\n",
	}
	for n, d := range files {
		p := filepath.Join(b.ws, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := b.run(t, schema.Sandbox{}, "go", "test", "./..."); err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	// make with a recipe that builds, and npm test of a package whose test
	// script writes a report: npm writes its cache and logs under ~/.npm.
	mk := "all: out/m.txt\n\nout/m.txt: m.go\n\tmkdir -p out && go vet ./... && cp m.go out/m.txt\n"
	pkg := `{"name": "m", "version": "1.0.0", "scripts": {"test": "node -e \"require('fs').writeFileSync('report.txt', 'ok')\""}}`
	for n, d := range map[string]string{"Makefile": mk, "package.json": pkg} {
		if err := os.WriteFile(filepath.Join(b.ws, n), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := b.run(t, schema.Sandbox{}, "make"); err != nil {
		t.Fatalf("make: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(b.ws, "out", "m.txt")); err != nil {
		t.Errorf("make built nothing: %v", err)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is needed (Node 20; the MCP tests need it too)")
	}
	out, err := b.run(t, schema.Sandbox{}, "sh", "-c", "HOME="+b.home+" npm test")
	if err != nil {
		t.Fatalf("npm test: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(b.ws, "report.txt")); string(data) != "ok" {
		t.Errorf("npm test wrote %q: %s", data, out)
	}
	git := exec.Command("git", "init", "-q", "-b", "main")
	git.Dir = b.ws
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	out, err = b.run(t, schema.Sandbox{}, "sh", "-c", "git add -A && git -c user.name=t -c user.email=t@example.invalid commit -qm one && git log --oneline | wc -l")
	if err != nil || strings.TrimSpace(out) != "1" {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	// .git/config and .git/hooks stay read-only.
	if out, err := b.run(t, schema.Sandbox{}, "sh", "-c", "echo '[core] hooksPath = x' >> .git/config"); err == nil {
		t.Errorf(".git/config written: %s", out)
	}
	if out, err := b.run(t, schema.Sandbox{}, "sh", "-c", "echo 'touch PWNED' > .git/hooks/pre-commit"); err == nil {
		t.Errorf(".git/hooks written: %s", out)
	}
}

// An exec failure of the target says so: Start's spawn fails to start,
// as exec.Cmd does for a program that is not there; the trampoline,
// which has started already, exits 127 with a line on stderr.
func TestMissingProgram(t *testing.T) {
	b := newBox(t)
	cmd := exec.Command("/no/such/program")
	cmd.Dir = b.ws
	if err := Wrap(cmd, Resolve(schema.Sandbox{}, ShellDefault, b.env())); err != nil {
		t.Fatal(err)
	}
	out, err := CombinedForTest(cmd)
	if viaTrampoline {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 127 || !strings.Contains(string(out), "ollm sandbox: exec /no/such/program") {
			t.Fatalf("err %v out %s", err, out)
		}
		return
	}
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "/no/such/program") {
		t.Fatalf("err %v out %s", err, out)
	}
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

// BenchmarkExec is the cost of a sandboxed /bin/true against a bare one:
// the re-exec, the namespaces and the Landlock rules. Besides the wall
// time it reports the median CPU time of the process (user + system, the
// trampoline's work included), which a loaded machine inflates less.
// "own-namespaces" is each process creating its own user, mount (and
// network) namespaces, as before the shared ones.
func BenchmarkExec(b *testing.B) {
	wd, _ := os.Getwd()
	env := Env{Workspace: wd, Home: os.Getenv("HOME"), Getenv: os.Getenv}
	for _, c := range []struct {
		name string
		p    *Policy
		own  bool
	}{
		{"bare", nil, false},
		{"sandboxed-no-network", ptr(Resolve(schema.Sandbox{}, ShellDefault, env)), false},
		{"sandboxed-network", ptr(Resolve(schema.Sandbox{}, ProcessDefault, env)), false},
		{"own-namespaces-no-network", ptr(Resolve(schema.Sandbox{}, ShellDefault, env)), true},
		{"own-namespaces-network", ptr(Resolve(schema.Sandbox{}, ProcessDefault, env)), true},
	} {
		b.Run(c.name, func(b *testing.B) {
			ownNamespaces = c.own
			defer func() { ownNamespaces = false }()
			var wall, cpu []float64
			for i := 0; i < b.N; i++ {
				cmd := exec.Command("/bin/true")
				if c.p != nil {
					if err := Wrap(cmd, *c.p); err != nil {
						b.Fatal(err)
					}
				}
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				wall = append(wall, float64(time.Since(start).Microseconds()))
				cpu = append(cpu, float64((cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Microseconds()))
			}
			b.ReportMetric(median(wall), "median-µs")
			b.ReportMetric(median(cpu), "median-cpu-µs")
		})
	}
}

func ptr[T any](v T) *T { return &v }

// BenchmarkShellOverhead is what the sandbox adds to one shell command
// (`bash -c true`) under the shell's default policy (workspace-write, no
// network: ollm's shared user and network namespaces, a mount namespace of
// its own, the Landlock rules and scopes, the seccomp filter), started as
// the shell tool starts it (Start: one clone, the policy applied in the
// child): a bare and a sandboxed run alternate, and the median of the
// differences is reported, in wall time and in the command's CPU time
// (user + system), which a loaded machine inflates less. A third run in
// each round starts it through the trampoline (ollm's re-exec, which an
// editor's terminal still uses): trampoline-overhead-µs. Target: at most
// 1 ms (#25).
func BenchmarkShellOverhead(b *testing.B) {
	wd, _ := os.Getwd()
	p := Resolve(schema.Sandbox{}, ShellDefault, Env{Workspace: wd, Home: os.Getenv("HOME"), Getenv: os.Getenv})
	run := func(sandboxed, spawn bool) (time.Duration, time.Duration) {
		cmd := exec.Command("bash", "-c", "true")
		if sandboxed {
			if err := Wrap(cmd, p); err != nil {
				b.Fatal(err)
			}
		}
		inProcess = spawn
		defer func() { inProcess = true }()
		start := time.Now()
		proc, err := Start(cmd)
		if err != nil {
			b.Fatal(err)
		}
		if err := proc.Wait(); err != nil {
			b.Fatal(err)
		}
		if sandboxed && proc.own != spawn {
			b.Fatalf("spawned in process: %v, want %v", proc.own, spawn)
		}
		return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	run(true, true) // the shared namespaces are made once per ollm process
	var bare, diff, cpuDiff, tramp []float64
	for i := 0; i < b.N; i++ {
		x, xc := run(false, true)
		y, yc := run(true, true)
		z, _ := run(true, false)
		bare = append(bare, float64(x.Microseconds()))
		diff = append(diff, float64((y - x).Microseconds()))
		cpuDiff = append(cpuDiff, float64((yc - xc).Microseconds()))
		tramp = append(tramp, float64((z - x).Microseconds()))
	}
	b.ReportMetric(median(diff), "median-overhead-µs")
	b.ReportMetric(median(cpuDiff), "median-cpu-overhead-µs")
	b.ReportMetric(median(bare), "median-µs")
	b.ReportMetric(median(tramp), "trampoline-overhead-µs")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// Run from the home directory: the workspace holds the secrets, and a
// write rule on it would grant them; they are covered instead.
func TestSecretsInsideTheWorkspace(t *testing.T) {
	b := newBox(t)
	env := b.env()
	env.Workspace = b.home // ollm started in ~
	p := Resolve(schema.Sandbox{}, ShellDefault, env)
	cmd := exec.Command("sh", "-c", "cat .ssh/id_rsa; echo 'ssh-rsa EVIL' >> .ssh/authorized_keys; echo ok > fine.txt; cat fine.txt")
	cmd.Dir = b.home
	if err := Wrap(cmd, p); err != nil {
		t.Fatal(err)
	}
	out, _ := CombinedForTest(cmd)
	if strings.Contains(string(out), "PRIVATE KEY") {
		t.Errorf("read the key: %s", out)
	}
	if _, err := os.Stat(filepath.Join(b.home, ".ssh", "authorized_keys")); err == nil {
		t.Errorf("wrote authorized_keys: %s", out)
	}
	if !strings.Contains(string(out), "ok") {
		t.Errorf("the rest of the workspace is not writable: %s", out)
	}
}

// A workspace inside a denied directory stays usable; the rest of that
// directory stays hidden.
func TestWorkspaceInsideADeniedDirectory(t *testing.T) {
	b := newBox(t)
	if err := os.WriteFile(filepath.Join(b.root, "other-secret.txt"), []byte("SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := b.env()
	env.DenyRead = []string{b.root}
	for _, preset := range []string{schema.SandboxReadOnly, schema.SandboxWorkspaceWrite} {
		p := Resolve(schema.Sandbox{Preset: preset}, ShellDefault, env)
		cmd := exec.Command("sh", "-c", "cat ../other-secret.txt; cat notes.txt")
		cmd.Dir = b.ws
		if err := Wrap(cmd, p); err != nil {
			t.Fatal(err)
		}
		out, _ := CombinedForTest(cmd)
		if strings.Contains(string(out), "SECRET") || !strings.Contains(string(out), "hello") {
			t.Errorf("%s: %s", preset, out)
		}
	}
}

// A secret location that is a symlink is hidden where it leads too.
func TestSymlinkedSecretLocation(t *testing.T) {
	b := newBox(t)
	dot := filepath.Join(b.home, "dotfiles", "ssh")
	if err := os.MkdirAll(dot, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dot, "id_ed25519"), []byte("LINKED KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(b.home, ".ssh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dot, filepath.Join(b.home, ".ssh")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(b.home, ".ssh", "id_ed25519"), filepath.Join(dot, "id_ed25519")} {
		if out, _ := b.run(t, schema.Sandbox{}, "cat", path); strings.Contains(out, "LINKED KEY") {
			t.Errorf("read %s: %s", path, out)
		}
	}
}

// All of .ollm/ is read-only to a sandboxed process, except the data
// directory of the extension the process belongs to.
func TestOllmDirIsProtectedButExtensionData(t *testing.T) {
	b := newBox(t)
	for _, d := range []string{".ollm/extensions/x", ".ollm/skills/s", ".ollm/hooks"} {
		if err := os.MkdirAll(filepath.Join(b.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(b.ws, ".ollm/hooks/guard.sh"), []byte("exit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, script := range map[string]string{
		"new extension":  "mkdir .ollm/extensions/evil",
		"edit hook":      "echo 'curl evil' >> .ollm/hooks/guard.sh",
		"new skill":      "echo x > .ollm/skills/s/SKILL.md",
		"memory":         "echo '{}' > .ollm/memory.json",
		"replace .ollm":  "mv .ollm .ollm-old",
		"other ext data": "mkdir -p .ollm/data/other && echo x > .ollm/data/other/f",
	} {
		t.Run(name, func(t *testing.T) {
			if out, err := b.run(t, schema.Sandbox{}, "sh", "-c", script); err == nil {
				t.Errorf("%q succeeded: %s", script, out)
			}
		})
	}
	if data, _ := os.ReadFile(filepath.Join(b.ws, ".ollm/hooks/guard.sh")); string(data) != "exit 0\n" {
		t.Errorf("guard.sh = %q", data)
	}

	// An extension's process writes its own data directory, and nothing
	// else under .ollm/.
	dir := ExtensionData(b.ws, "audit")
	p := Resolve(schema.Sandbox{}, ProcessDefault, b.env())
	if err := p.AllowData(b.ws, dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "echo entry >> .ollm/data/audit/log.jsonl && cat .ollm/data/audit/log.jsonl && echo x > .ollm/skills/s/SKILL.md")
	cmd.Dir = b.ws
	if err := Wrap(cmd, p); err != nil {
		t.Fatal(err)
	}
	out, err := CombinedForTest(cmd)
	if err == nil || !strings.HasPrefix(string(out), "entry\n") {
		t.Errorf("data dir write then skill write: err=%v out=%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(b.ws, ".ollm/skills/s/SKILL.md")); err == nil {
		t.Error("the extension's process wrote a skill")
	}

	// A data directory that is a link (planted while .ollm did not exist)
	// is refused: it would widen the write set to where it points.
	if err := os.Symlink(b.outside, filepath.Join(b.ws, ".ollm/data/linked")); err != nil {
		t.Fatal(err)
	}
	q := Resolve(schema.Sandbox{}, ProcessDefault, b.env())
	if err := q.AllowData(b.ws, ExtensionData(b.ws, "linked")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("linked data dir: %v", err)
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if d := ExtensionData(b.ws, bad); d != "" {
			t.Errorf("ExtensionData(%q) = %q", bad, d)
		}
	}
}

// An $OLLM_HOME inside a writable directory (a temporary one): what the
// write rule covers is neither listed nor given read rules of its own,
// however many entries the directory has, and the secrets inside are
// hidden, not readable through the write rule.
func TestOllmHomeInsideAWritableDirectory(t *testing.T) {
	b := newBox(t)
	tmp := filepath.Join(b.root, "tmp")
	for i := 0; i < 300; i++ {
		if err := os.MkdirAll(filepath.Join(tmp, fmt.Sprintf("crowd-%03d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(tmp, "ollm-home")
	if err := os.MkdirAll(filepath.Join(home, "tokens"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "tokens", "srv.json"), []byte("TOKEN\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "crowd-007", "mine.txt"), []byte("visible\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := b.env()
	env.OllmHome = home
	p := Resolve(schema.Sandbox{}, ProcessDefault, env)
	for _, r := range p.Read {
		if covered(r, p.Write) {
			t.Errorf("read rule %s is inside a write rule", r)
		}
	}
	// Counted against the crowd itself, not in total: a checkout in a
	// crowded directory (under /tmp) lists that directory's entries on
	// the way to the box's denied ~/.ssh, as it should.
	for _, r := range p.Read {
		if within(r, tmp) {
			t.Errorf("read rule %s: the writable directory's entries were listed", r)
			break
		}
	}
	cmd := exec.Command("sh", "-c", "cat "+filepath.Join(home, "tokens", "srv.json")+"; cat "+filepath.Join(tmp, "crowd-007", "mine.txt"))
	cmd.Dir = b.ws
	if err := Wrap(cmd, p); err != nil {
		t.Fatal(err)
	}
	out, _ := CombinedForTest(cmd)
	if !Probe().UserNS {
		t.Logf("no user namespaces: secrets under a writable path are not hidden (%s)", out)
	} else if strings.Contains(string(out), "TOKEN") {
		t.Errorf("read the token through the write rule: %s", out)
	}
	if !strings.Contains(string(out), "visible") {
		t.Errorf("the writable directory is not readable: %s", out)
	}
}

// BenchmarkResolve is resolving the shell's default policy in this
// user's real home: the enumeration around $HOME and the secrets, the home
// allow-list, the git directories.
func BenchmarkResolve(b *testing.B) {
	wd, _ := os.Getwd()
	env := Env{Workspace: wd, Home: os.Getenv("HOME"), Getenv: os.Getenv}
	var p Policy
	for i := 0; i < b.N; i++ {
		p = Resolve(schema.Sandbox{}, ShellDefault, env)
	}
	b.ReportMetric(float64(len(p.Read)+len(p.Write)), "landlock-rules")
	b.ReportMetric(float64(len(p.Protect)+len(p.Pin)+len(p.Hide)), "mounts")
}
