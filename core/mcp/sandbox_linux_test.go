//go:build linux

package mcp

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/sandbox/sandboxtest"
	"github.com/ollm/ollm/schema"
)

// sbox is a workspace, a fake home and $OLLM_HOME, and a directory outside
// them, under the package directory: not under /tmp, which workspace-write
// may write (see newBox in core/sandbox).
type sbox struct {
	root, ws, home, ollmHome, outside string
	env                               func() sandbox.Env
}

func newSandboxBox(t *testing.T) *sbox {
	x := sandboxtest.New(t)
	return &sbox{root: x.Root, ws: x.WS, home: x.Home, ollmHome: x.OllmHome, outside: x.Outside, env: x.Env}
}

// options runs every stdio server under s over the MCP default.
func (b *sbox) options(s schema.Sandbox) Options {
	return Options{Roots: []string{b.ws}, Sandbox: SandboxPolicy(s, b.env())}
}

var readOnly = schema.Sandbox{Preset: schema.SandboxReadOnly}

// server-everything under read-only answers tools/list and a tool call.
func TestSandboxedEverything(t *testing.T) {
	b := newSandboxBox(t)
	spec := everythingStdio(t, "everything")
	spec.Config.Cwd = b.ws
	m := startManager(t, []Spec{spec}, b.options(readOnly))
	st := m.Status()[0]
	if st.State != StateReady || st.Sandbox != "read-only, network" || st.Tools == 0 {
		t.Fatalf("status %+v", st)
	}
	res := run(t, mustLookup(t, m, "echo"), `{"message":"from the sandbox"}`, nil)
	if res.Error != nil || !strings.Contains(res.ForModel, "from the sandbox") {
		t.Errorf("echo: %+v", res)
	}
}

// A server's process cannot write outside what its sandbox allows: a
// wrapper that touches a file in the workspace and one outside before
// starting server-everything.
func TestSandboxedServerWrites(t *testing.T) {
	b := newSandboxBox(t)
	inside, outside := filepath.Join(b.ws, "inside"), filepath.Join(b.outside, "outside")
	script := fmt.Sprintf("touch %q; touch %q; exec node %q stdio", inside, outside, serverScript(t, "server-everything", "index.js"))
	for _, c := range []struct {
		sandbox         schema.Sandbox
		inside, outside bool
	}{
		{readOnly, false, false},
		{schema.Sandbox{}, true, false},
		{schema.Sandbox{Preset: schema.SandboxOff}, true, true},
	} {
		t.Run(cmp.Or(c.sandbox.Preset, "default"), func(t *testing.T) {
			os.Remove(inside)
			os.Remove(outside)
			spec := Spec{Name: "wrapped", Config: Config{Command: "sh", Args: []string{"-c", script}, Cwd: b.ws, Enabled: true}}
			m := startManager(t, []Spec{spec}, b.options(c.sandbox))
			if st := m.Status()[0]; st.State != StateReady {
				t.Fatalf("status %+v", st)
			}
			if got := exists(inside); got != c.inside {
				t.Errorf("inside written: %v, want %v", got, c.inside)
			}
			if got := exists(outside); got != c.outside {
				t.Errorf("outside written: %v, want %v", got, c.outside)
			}
		})
	}
}

// server-filesystem given the workspace and a directory outside as its
// roots: under workspace-write it writes the workspace, and the sandbox,
// not the server, refuses the other root; under read-only it writes
// neither but still reads.
func TestSandboxedFilesystem(t *testing.T) {
	b := newSandboxBox(t)
	if err := os.WriteFile(filepath.Join(b.outside, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Name: "fs", Config: Config{Command: "node", Cwd: b.ws, Enabled: true,
		Args: []string{serverScript(t, "server-filesystem", "index.js"), b.ws, b.outside}}}
	write := func(t *testing.T, m *Manager, path string) string {
		res := run(t, mustLookup(t, m, "write_file"), fmt.Sprintf(`{"path":%q,"content":"x"}`, path), nil)
		if res.Error != nil {
			return res.Error.Message
		}
		return ""
	}
	// No roots: server-filesystem would take them in place of its arguments.
	options := func(s schema.Sandbox) Options { return Options{Sandbox: SandboxPolicy(s, b.env())} }
	t.Run("workspace-write", func(t *testing.T) {
		m := startManager(t, []Spec{spec}, options(schema.Sandbox{}))
		if msg := write(t, m, filepath.Join(b.ws, "made.txt")); msg != "" || !exists(filepath.Join(b.ws, "made.txt")) {
			t.Errorf("write in the workspace: %q", msg)
		}
		if msg := write(t, m, filepath.Join(b.outside, "made.txt")); !strings.Contains(msg, "EACCES") || exists(filepath.Join(b.outside, "made.txt")) {
			t.Errorf("write outside: %q", msg)
		}
	})
	t.Run("read-only", func(t *testing.T) {
		m := startManager(t, []Spec{spec}, options(readOnly))
		if msg := write(t, m, filepath.Join(b.ws, "ro.txt")); msg == "" || exists(filepath.Join(b.ws, "ro.txt")) {
			t.Errorf("read-only wrote the workspace: %q", msg)
		}
		res := run(t, mustLookup(t, m, "read_text_file"), fmt.Sprintf(`{"path":%q}`, filepath.Join(b.outside, "notes.txt")), nil)
		if res.Error != nil || !strings.Contains(res.ForModel, "remember the milk") {
			t.Errorf("read: %+v", res)
		}
	})
}

// npx finds a package installed in node_modules under both presets; npm's
// cache and logs under ~/.npm are writable in workspace-write only, and
// npx copes without them.
func TestSandboxedNpx(t *testing.T) {
	b := newSandboxBox(t)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	env := b.env()
	env.Home = home // npx uses the real ~/.npm
	for _, s := range []schema.Sandbox{readOnly, {}} {
		t.Run(cmp.Or(s.Preset, "default"), func(t *testing.T) {
			spec := Spec{Name: "npx", Config: Config{Command: "npx", Args: []string{"--offline", "--no-install", "mcp-server-everything", "stdio"},
				Cwd: npmDir(t), Enabled: true}}
			m := startManager(t, []Spec{spec}, Options{Sandbox: SandboxPolicy(s, env)})
			if st := m.Status()[0]; st.State != StateReady || st.Tools == 0 {
				t.Fatalf("status %+v", st)
			}
			if res := run(t, mustLookup(t, m, "get-sum"), `{"a":19,"b":23}`, nil); !strings.Contains(res.ForModel, "42") {
				t.Errorf("get-sum: %+v", res)
			}
		})
	}
}

// An extension's server reads its own directory even under a denied path.
func TestSandboxedExtensionServerReadsItsDirectory(t *testing.T) {
	b := newSandboxBox(t)
	dir := filepath.Join(b.root, "denied", "ext")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	start := filepath.Join(dir, "start.sh")
	if err := os.WriteFile(start, []byte("#!/bin/sh\nexec node "+serverScript(t, "server-everything", "index.js")+" stdio\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := b.env()
	env.DenyRead = []string{filepath.Join(b.root, "denied")}
	spec := Spec{Name: "ext:everything", Extension: "ext", Dir: dir, Config: Config{Command: "./start.sh", Enabled: true}}
	m := startManager(t, []Spec{spec}, Options{Sandbox: SandboxPolicy(readOnly, env)})
	if st := m.Status()[0]; st.State != StateReady {
		t.Fatalf("status %+v", st)
	}
	// The same script outside any extension is hidden.
	spec.Extension, spec.Name = "", "loose"
	m = startManager(t, []Spec{spec}, Options{Sandbox: SandboxPolicy(readOnly, env)})
	if st := m.Status()[0]; st.State != StateFailed {
		t.Fatalf("a denied script ran: %+v", st)
	}
}

// When the machine cannot sandbox, a server runs with a warning in its
// status, or fails to start when the sandbox is required.
func TestSandboxUnavailable(t *testing.T) {
	b := newSandboxBox(t)
	unavailable := func(*exec.Cmd, sandbox.Policy) error {
		return fmt.Errorf("%w: the kernel has no Landlock", sandbox.ErrUnavailable)
	}
	opts := b.options(schema.Sandbox{})
	opts.wrap = unavailable
	m := startManager(t, []Spec{everythingStdio(t, "everything")}, opts)
	st := m.Status()[0]
	if st.State != StateReady || st.Sandbox != "no sandbox" || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "no Landlock") {
		t.Errorf("not required: %+v", st)
	}
	opts.SandboxRequired = true
	m = startManager(t, []Spec{everythingStdio(t, "everything")}, opts)
	st = m.Status()[0]
	if st.State != StateFailed || !strings.Contains(st.Error, "sandbox.required") || !strings.Contains(st.Error, `MCP server "everything"`) {
		t.Errorf("required: %+v", st)
	}
}

// Without Options.Sandbox nothing changes: no sandbox, no status line.
func TestNoSandboxFunction(t *testing.T) {
	b := newSandboxBox(t)
	outside := filepath.Join(b.outside, "outside")
	spec := Spec{Name: "wrapped", Config: Config{Command: "sh", Enabled: true,
		Args: []string{"-c", fmt.Sprintf("touch %q; exec node %q stdio", outside, serverScript(t, "server-everything", "index.js"))}}}
	m := startManager(t, []Spec{spec}, Options{})
	if st := m.Status()[0]; st.State != StateReady || st.Sandbox != "" || !exists(outside) {
		t.Errorf("status %+v, outside written %v", st, exists(outside))
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// A repository a server creates in the workspace during a call (here
// server-filesystem, asked by the model for a .git with a config whose
// fsmonitor git would run outside any sandbox) is moved aside when the
// call ends, and the result says so to the model and the user.
func TestServerRepositoryIsHeld(t *testing.T) {
	b := newSandboxBox(t)
	spec := Spec{Name: "fs", Config: Config{Command: "node", Cwd: b.ws, Enabled: true,
		Args: []string{serverScript(t, "server-filesystem", "index.js"), b.ws}}}
	g := sandbox.NewGitWatch(b.ws)
	defer g.Close()
	m := startManager(t, []Spec{spec}, Options{Sandbox: SandboxPolicy(schema.Sandbox{}, b.env()), GitWatch: g})
	dir := filepath.Join(b.ws, "lib", ".git")
	res := run(t, mustLookup(t, m, "create_directory"), fmt.Sprintf(`{"path":%q}`, dir), nil)
	if res.Error != nil {
		t.Fatalf("create_directory: %+v", res)
	}
	for _, s := range []string{res.ForModel, res.Display} {
		if !strings.Contains(s, "warning: MCP server fs: "+dir+": a new git repository") {
			t.Errorf("the result does not say so: %q", s)
		}
	}
	if exists(dir) || !exists(dir+sandbox.HeldSuffix) {
		t.Errorf("not moved aside: %v %v", exists(dir), exists(dir+sandbox.HeldSuffix))
	}
	// The model writes the config next: into a directory git no longer
	// takes for a repository.
	res = run(t, mustLookup(t, m, "write_file"), fmt.Sprintf(`{"path":%q,"content":"[core]\n\tfsmonitor = touch PWNED\n"}`, filepath.Join(dir, "config")), nil)
	if exists(filepath.Join(dir, "config")) && exists(filepath.Join(dir, "HEAD")) {
		t.Errorf("a repository with the planted config stands: %+v", res)
	}
}
