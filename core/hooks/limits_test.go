package hooks

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/schema"
)

// A sandboxed hook process is bounded, from before its exec, in what it
// may allocate and in the size of a file it may write: a hook that
// writes 4 MiB under a 1 MiB bound leaves at most 1 MiB, one that
// allocates 512 MiB under a 128 MiB bound fails.
func TestHookLimits(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	script := `head -c 4194304 /dev/zero > big.bin; ` +
		`python3 -c 'b = bytearray(512 << 20); print("allocated")' > alloc.txt 2>&1; cat >/dev/null; echo '{}'`
	h := &Hook{Name: "hog", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Command: "sh", Args: []string{"-c", script}}}
	e := newEngine(t, Options{Session: Session{ID: "s", Cwd: ws}, MaxMemory: 128 << 20, MaxFileSize: 1 << 20,
		Sandbox: SandboxPolicy(schema.Sandbox{}, sandbox.Env{Workspace: ws, Home: home, Getenv: os.Getenv})}, h)
	if _, err := e.Emit(context.Background(), BeforeTool, benchData); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(ws, "big.bin"))
	if err != nil || fi.Size() > 1<<20 {
		t.Errorf("big.bin: %v, %d bytes, want at most 1 MiB", err, sizeOf(fi))
	}
	out, _ := os.ReadFile(filepath.Join(ws, "alloc.txt"))
	if len(out) == 0 || string(out) == "allocated\n" {
		t.Errorf("the hook allocated 512 MiB under a 128 MiB bound: %q", out)
	}
}

// Unsandboxed (sandbox.preset "off", or no Landlock), the bounds are set
// just after the process starts: the hook program itself, an interpreter
// that allocates once it has started, is bounded. (A child it forks in
// its first microseconds is not: docs/hooks.md says so.)
func TestHookLimitsUnsandboxed(t *testing.T) {
	ws := t.TempDir()
	h := &Hook{Name: "hog", Event: BeforeTool, Scope: schema.ScopeUser, Def: schema.Hook{Command: "python3",
		Args: []string{"-c", `import sys; sys.stdin.read(); b = bytearray(512 << 20); open("alloc.txt", "w").write("allocated"); print("{}")`}}}
	e := newEngine(t, Options{Session: Session{ID: "s", Cwd: ws}, MaxMemory: 128 << 20}, h)
	out, err := e.Emit(context.Background(), BeforeTool, benchData)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "alloc.txt")); err == nil {
		t.Errorf("the hook allocated 512 MiB under a 128 MiB bound")
	}
	if out.Results[0].Failure == "" {
		t.Errorf("the bounded hook did not fail: %+v", out.Results[0])
	}
}

func sizeOf(fi os.FileInfo) int64 {
	if fi == nil {
		return -1
	}
	return fi.Size()
}
