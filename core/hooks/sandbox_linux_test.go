//go:build linux

package hooks

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// policy is a Sandbox option resolving s over the hooks' default.
func (b *sbox) policy(s schema.Sandbox) func(*Hook) (sandbox.Policy, error) {
	return func(*Hook) (sandbox.Policy, error) { return sandbox.Resolve(s, sandbox.ProcessDefault, b.env()), nil }
}

// engine runs hooks in the box's workspace.
func (b *sbox) engine(t *testing.T, opts Options, hooks ...*Hook) *Engine {
	opts.Session = Session{ID: "sess-sandbox", Cwd: b.ws}
	return newEngine(t, opts, hooks...)
}

// writeScript writes an executable script.
func writeScript(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// writerScript tries a write in the workspace and one outside, and says
// which worked in its system message.
const writerScript = `#!/bin/sh
cat >/dev/null
r=""
if echo in > "$WS/inside.txt" 2>/dev/null; then r="$r inside:ok"; else r="$r inside:denied"; fi
if echo out > "$OUTSIDE/outside.txt" 2>/dev/null; then r="$r outside:ok"; else r="$r outside:denied"; fi
printf '{"systemMessage": "%s"}\n' "$r"
`

func (b *sbox) writerHook(t *testing.T, name string) *Hook {
	path := writeScript(t, filepath.Join(b.root, "scripts", "writer.sh"), writerScript)
	return &Hook{Name: name, Event: BeforeTool, Scope: schema.ScopeUser,
		Def: schema.Hook{Name: name, Command: path, Env: map[string]string{"WS": b.ws, "OUTSIDE": b.outside}}}
}

// written reports which of the writer's two files exist, and removes them.
func (b *sbox) written() (inside, outside bool) {
	in, out := filepath.Join(b.ws, "inside.txt"), filepath.Join(b.outside, "outside.txt")
	_, ei := os.Stat(in)
	_, eo := os.Stat(out)
	os.Remove(in)
	os.Remove(out)
	return ei == nil, eo == nil
}

func TestSandboxedHookWrites(t *testing.T) {
	b := newSandboxBox(t)
	cases := []struct {
		name            string
		sandbox         func(*Hook) (sandbox.Policy, error)
		message         string
		inside, outside bool
	}{
		{"workspace-write", b.policy(schema.Sandbox{}), "inside:ok outside:denied", true, false},
		{"read-only", b.policy(schema.Sandbox{Preset: schema.SandboxReadOnly}), "inside:denied outside:denied", false, false},
		{"off", b.policy(schema.Sandbox{Preset: schema.SandboxOff}), "inside:ok outside:ok", true, true},
		{"no sandbox function", nil, "inside:ok outside:ok", true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := b.engine(t, Options{Sandbox: c.sandbox}, b.writerHook(t, "writer"))
			out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
			if r := out.Results[0]; r.Failure != "" {
				t.Fatalf("result %+v", r)
			}
			if got := strings.TrimSpace(out.SystemMessage()); got != c.message {
				t.Errorf("hook said %q, want %q", got, c.message)
			}
			if in, o := b.written(); in != c.inside || o != c.outside {
				t.Errorf("files: inside %v outside %v, want %v %v", in, o, c.inside, c.outside)
			}
		})
	}
}

// A persistent hook's process is sandboxed too, for its whole life.
func TestSandboxedPersistentHook(t *testing.T) {
	b := newSandboxBox(t)
	path := writeScript(t, filepath.Join(b.root, "scripts", "pwriter.py"), `#!/usr/bin/env python3
import json, os, sys
def attempt(path):
    try:
        open(path, "w").write("x")
        return "ok"
    except OSError:
        return "denied"
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        print(json.dumps({"type": "hello"}), flush=True)
    elif msg.get("type") == "shutdown":
        break
    else:
        r = "inside:%s outside:%s" % (attempt(os.path.join(os.environ["WS"], "inside.txt")),
                                       attempt(os.path.join(os.environ["OUTSIDE"], "outside.txt")))
        print(json.dumps({"id": msg["id"], "systemMessage": r}), flush=True)
`)
	h := &Hook{Name: "p", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Name: "p", Command: path,
		Persistent: true, Env: map[string]string{"WS": b.ws, "OUTSIDE": b.outside}}}
	e := b.engine(t, Options{Sandbox: b.policy(schema.Sandbox{})}, h)
	for range 2 {
		out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
		if r := out.Results[0]; r.Failure != "" || out.SystemMessage() != "inside:ok outside:denied" {
			t.Fatalf("result %+v message %q", r, out.SystemMessage())
		}
		if in, o := b.written(); !in || o {
			t.Fatalf("files: inside %v outside %v", in, o)
		}
	}
}

// A hook declared with the network off cannot connect to a loopback
// listener; with it on (the hooks' default) it can.
func TestSandboxedHookNetwork(t *testing.T) {
	b := newSandboxBox(t)
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
	path := writeScript(t, filepath.Join(b.root, "scripts", "connect.py"), `#!/usr/bin/env python3
import json, os, socket, sys
sys.stdin.read()
try:
    s = socket.create_connection(("127.0.0.1", int(os.environ["PORT"])), timeout=2)
    r = "connected " + s.recv(2).decode()
except OSError as e:
    r = "refused"
print(json.dumps({"systemMessage": r}))
`)
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	off, on := false, true
	for _, c := range []struct {
		network *bool
		want    string
	}{{&off, "refused"}, {&on, "connected hi"}, {nil, "connected hi"}} {
		h := &Hook{Name: "net", Event: BeforeTool, Scope: schema.ScopeUser,
			Def: schema.Hook{Name: "net", Command: path, Env: map[string]string{"PORT": port}}}
		e := b.engine(t, Options{Sandbox: b.policy(schema.Sandbox{Network: c.network})}, h)
		out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
		if got := out.SystemMessage(); got != c.want || out.Results[0].Failure != "" {
			t.Errorf("network %v: %q %+v, want %q", c.network, got, out.Results[0], c.want)
		}
	}
}

// An extension hook reads its own files wherever the extension lives:
// in the store under $OLLM_HOME, in $OLLM_HOME/extensions, or under a
// path the profile denies (its own directory is added to what it reads).
func TestSandboxedExtensionHookReadsItsOwnFiles(t *testing.T) {
	b := newSandboxBox(t)
	// The secrets under $OLLM_HOME exist, so the policy enumerates around them.
	for _, s := range []string{"auth", "tokens", "sessions"} {
		os.MkdirAll(filepath.Join(b.ollmHome, s), 0o700)
	}
	denied := filepath.Join(b.root, "denied")
	for _, dir := range []string{
		filepath.Join(b.ollmHome, "store", "h1abc-guard"),
		filepath.Join(b.ollmHome, "extensions", "guard"),
		filepath.Join(denied, "guard"),
	} {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			writeScript(t, filepath.Join(dir, "data.txt"), "own data\n")
			writeScript(t, filepath.Join(dir, "hooks", "read.sh"), "#!/bin/sh\ncat >/dev/null\nprintf '{\"systemMessage\": \"%s\"}\\n' \"$(cat \"$OLLM_EXTENSION_DIR/data.txt\")\"\n")
			// The scope is the user's so that no approval is asked; where
			// the directory lies is what matters here.
			h := &Hook{Name: "read", Event: BeforeTool, Scope: schema.ScopeUser, Extension: "guard", Dir: dir,
				Def: schema.Hook{Name: "read", Command: "hooks/read.sh"}}
			env := b.env()
			env.DenyRead = []string{denied}
			policy := func(*Hook) (sandbox.Policy, error) {
				return sandbox.Resolve(schema.Sandbox{}, sandbox.ProcessDefault, env), nil
			}
			e := b.engine(t, Options{Sandbox: policy}, h)
			out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
			if out.SystemMessage() != "own data" || out.Results[0].Failure != "" {
				t.Fatalf("message %q result %+v notices %v", out.SystemMessage(), out.Results[0], out.Notices)
			}
		})
	}
	// A hook of no extension gets no such exception.
	os.WriteFile(filepath.Join(denied, "secret.txt"), []byte("secret\n"), 0o644)
	path := writeScript(t, filepath.Join(b.root, "scripts", "peek.sh"), "#!/bin/sh\ncat >/dev/null\nprintf '{\"systemMessage\": \"%s\"}\\n' \"$(cat "+filepath.Join(denied, "secret.txt")+" 2>/dev/null)\"\n")
	env := b.env()
	env.DenyRead = []string{denied}
	e := b.engine(t, Options{Sandbox: func(*Hook) (sandbox.Policy, error) {
		return sandbox.Resolve(schema.Sandbox{}, sandbox.ProcessDefault, env), nil
	}}, &Hook{Name: "peek", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Name: "peek", Command: path}})
	if out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"}); out.SystemMessage() != "" {
		t.Errorf("a profile hook read a denied path: %q", out.SystemMessage())
	}
}

// When the machine cannot sandbox, a hook runs unsandboxed with one
// warning per engine, or, with SandboxRequired, fails to start: a
// failClosed hook then blocks and says why.
func TestSandboxUnavailable(t *testing.T) {
	b := newSandboxBox(t)
	unavailable := func(*exec.Cmd, sandbox.Policy) error {
		return fmt.Errorf("%w: the kernel has no Landlock", sandbox.ErrUnavailable)
	}
	t.Run("not required", func(t *testing.T) {
		var logs syncBuffer
		e := b.engine(t, Options{Sandbox: b.policy(schema.Sandbox{}), Logger: slog.New(slog.NewTextHandler(&logs, nil))},
			b.writerHook(t, "w1"), b.writerHook(t, "w2"))
		e.wrap = unavailable
		for range 2 {
			out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
			if len(out.Results) != 2 || out.Results[1].Failure != "" || out.Blocked {
				t.Fatalf("outcome %+v", out)
			}
		}
		if _, o := b.written(); !o {
			t.Error("the unsandboxed hook did not write outside")
		}
		if n := strings.Count(logs.String(), "without a sandbox"); n != 1 {
			t.Errorf("%d warnings, want 1:\n%s", n, logs.String())
		}
	})
	t.Run("required", func(t *testing.T) {
		guard := b.writerHook(t, "guard")
		guard.Def.FailClosed = true
		e := b.engine(t, Options{Sandbox: b.policy(schema.Sandbox{}), SandboxRequired: true}, b.writerHook(t, "observer"), guard)
		e.wrap = unavailable
		out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
		if r := out.Results[0]; r.Failure != FailStart || !strings.Contains(r.Error, "sandbox.required") {
			t.Errorf("observer %+v", r)
		}
		if !out.Blocked || out.BlockedBy != "guard" || !strings.Contains(out.Reason, "no Landlock") {
			t.Errorf("outcome %+v", out)
		}
		if in, o := b.written(); in || o {
			t.Error("a hook ran although the sandbox is required")
		}
	})
	t.Run("persistent required", func(t *testing.T) {
		h := userHook(t, "p", BeforeTool, "persistent.py")
		h.Def.Persistent, h.Def.FailClosed = true, true
		e := b.engine(t, Options{Sandbox: b.policy(schema.Sandbox{}), SandboxRequired: true}, h)
		e.wrap = unavailable
		out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
		if !out.Blocked || !strings.Contains(out.Reason, "sandbox.required") {
			t.Errorf("outcome %+v", out)
		}
	})
	t.Run("policy error", func(t *testing.T) {
		h := b.writerHook(t, "w")
		h.Def.FailClosed = true
		e := b.engine(t, Options{Sandbox: func(*Hook) (sandbox.Policy, error) {
			return sandbox.Policy{}, fmt.Errorf("no such preset %q", "wide-open")
		}}, h)
		out := emit(t, e, BeforeTool, map[string]any{"tool_name": "shell"})
		if !out.Blocked || !strings.Contains(out.Reason, "wide-open") {
			t.Errorf("outcome %+v", out)
		}
	})
}

// syncBuffer is a bytes.Buffer safe for the engine's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
