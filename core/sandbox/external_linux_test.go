package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

// runExternal starts argv the way an editor's terminal does: the Launch's
// program, arguments, directory and environment as they are, with the
// editor's own environment underneath and no help from ollm (no clone
// flags, no ambient capabilities).
func (b *box) runExternal(t *testing.T, s schema.Sandbox, env []string, argv ...string) (string, error) {
	t.Helper()
	l, err := External(argv, b.ws, env, Resolve(s, ShellDefault, b.env()))
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != fmt.Sprintf("/proc/%d/exe", os.Getpid()) {
		t.Fatalf("the editor would run %s, not this process's own executable", l.Path)
	}
	cmd := exec.Command(l.Path, l.Args...)
	cmd.Dir = b.root // the editor's own directory: the spec moves to l.Dir
	// The editor's own variables come first, the request's after them,
	// as an editor that appends without replacing passes them (os/exec
	// would keep only the last of each name).
	cmd.Env = append(append(os.Environ(), "EDITOR_SECRET=from-the-editor", "GIVEN=editor", "LD_PRELOAD="+filepath.Join(b.outside, "editor.so")), l.Env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// A command an editor starts from External is sandboxed as Wrap's is:
// writes outside the workspace, the key and ollm.cue are refused, the
// workspace is written, it runs in the directory asked for, with exactly
// the environment given (not the editor's), and without the network.
func TestExternalLaunchIsSandboxed(t *testing.T) {
	b := newBox(t)
	tmp := filepath.Join(b.root, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp, "GIVEN=yes"}
	target := filepath.Join(b.outside, "keep.txt")
	key := filepath.Join(b.home, ".ssh", "id_rsa")
	for name, argv := range map[string][]string{
		"write outside":   {"sh", "-c", "echo x > " + filepath.Join(b.outside, "new.txt")},
		"rm outside":      {"rm", "-f", target},
		"read the key":    {"cat", key},
		"append ollm.cue": {"sh", "-c", "echo 'policy: mode: \"yolo\"' >> ollm.cue"},
		"write OLLM_HOME": {"sh", "-c", "echo x >> " + filepath.Join(b.ollmHome, "profile.cue")},
	} {
		out, err := b.runExternal(t, schema.Sandbox{}, env, argv...)
		if err == nil {
			t.Errorf("%s: %q succeeded: %s", name, argv, out)
		}
		if strings.Contains(out, "PRIVATE KEY") {
			t.Errorf("%s: read the key: %s", name, out)
		}
	}
	if data, _ := os.ReadFile(target); string(data) != "outside\n" {
		t.Errorf("outside file = %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(b.ws, "ollm.cue")); string(data) != "version: 1\n" {
		t.Errorf("ollm.cue = %q", data)
	}
	// The editor's LD_PRELOAD is not loaded (ld.so would complain of the
	// missing file) nor seen.
	out, err := b.runExternal(t, schema.Sandbox{}, env, "sh", "-c", `echo y > made.txt && pwd && echo "given=$GIVEN editor=$EDITOR_SECRET spec=$_OLLM_SANDBOX preload=${LD_PRELOAD-unset}" && echo $0`)
	want := b.ws + "\ngiven=yes editor= spec= preload=unset\nsh\n"
	if err != nil || out != want {
		t.Fatalf("workspace command: %v\n got %q\nwant %q", err, out, want)
	}
	if data, _ := os.ReadFile(filepath.Join(b.ws, "made.txt")); string(data) != "y\n" {
		t.Errorf("made.txt = %q", data)
	}

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
			c.Close()
		}
	}()
	py := fmt.Sprintf("import socket; socket.create_connection(('127.0.0.1', %d), timeout=5); print('connected')", ln.Addr().(*net.TCPAddr).Port)
	if out, err := b.runExternal(t, schema.Sandbox{}, env, "python3", "-c", py); err == nil || strings.Contains(out, "connected") {
		t.Errorf("network off: connected: %v %s", err, out)
	}
	if out, err := b.runExternal(t, schema.Sandbox{Network: ptr(true)}, env, "python3", "-c", py); err != nil || !strings.Contains(out, "connected") {
		t.Errorf("network on: %v %s", err, out)
	}
}

// An Off policy is not handed to another program: it would run the
// command unsandboxed.
func TestExternalRefusesOff(t *testing.T) {
	b := newBox(t)
	_, err := External([]string{"true"}, b.ws, nil, Resolve(schema.Sandbox{Preset: schema.SandboxOff}, ShellDefault, b.env()))
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("off: %v", err)
	}
}

// A launcher that appends the request's variables after its own without
// replacing them (os.StartProcess passes duplicates as they are): the
// command gets the request's value, the last one, and only it.
func TestExternalLastValueWins(t *testing.T) {
	b := newBox(t)
	l, err := External([]string{"env"}, b.ws, []string{"PATH=" + os.Getenv("PATH"), "GIVEN=ollm"}, Resolve(schema.Sandbox{}, ShellDefault, b.env()))
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	env := append([]string{"GIVEN=editor"}, l.Env...)
	p, err := os.StartProcess(l.Path, append([]string{l.Path}, l.Args...), &os.ProcAttr{Dir: b.root, Env: env, Files: []*os.File{nil, w, w}})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, _ = out.ReadFrom(r)
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	var given []string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "GIVEN=") {
			given = append(given, line)
		}
	}
	if strings.Join(given, " ") != "GIVEN=ollm" {
		t.Fatalf("the command's environment holds %q:\n%s", given, out.String())
	}
}
