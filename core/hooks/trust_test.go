package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

func TestNeedsApproval(t *testing.T) {
	for _, tt := range []struct {
		scope schema.Scope
		trust bool
		want  bool
	}{
		{schema.ScopeBuiltin, false, false},
		{schema.ScopeUser, false, false},
		{schema.ScopeDirectory, false, false},
		{schema.ScopeWorkspace, false, true},
		{schema.ScopeStore, false, true},
		{schema.ScopeFlag, false, true},
		{schema.ScopeWorkspace, true, false},
		{schema.ScopeStore, true, false},
		{"somewhere", true, true},
	} {
		if got := NeedsApproval(tt.scope, tt.trust); got != tt.want {
			t.Errorf("NeedsApproval(%s, %v) = %v, want %v", tt.scope, tt.trust, got, tt.want)
		}
	}
}

func TestDecide(t *testing.T) {
	for _, tt := range []struct {
		scope          schema.Scope
		hash, approved string
		have           bool
		want           TrustState
	}{
		{schema.ScopeUser, "h1", "", false, Trusted},
		{schema.ScopeWorkspace, "h1", "", false, Unapproved},
		{schema.ScopeWorkspace, "h1", "h1", true, Approved},
		{schema.ScopeWorkspace, "h2", "h1", true, Changed},
	} {
		if got := Decide(tt.scope, false, tt.hash, tt.approved, tt.have); got != tt.want {
			t.Errorf("Decide(%+v) = %s, want %s", tt, got, tt.want)
		}
	}
}

// workspaceHook is an untrusted hook running a script copied into ws.
func workspaceHook(t *testing.T, ws, name string) *Hook {
	data, err := os.ReadFile(script(t, "ok.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "guard.sh"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	return &Hook{Name: name, Event: BeforeTool, Scope: schema.ScopeWorkspace, Root: ws, Dir: ws,
		Def: schema.Hook{Name: name, Command: "bash", Args: []string{"guard.sh", "ran"}}}
}

func TestApprovalThenReapprovalAfterAnEdit(t *testing.T) {
	ws := t.TempDir()
	approvals := FileApprovals{Path: filepath.Join(t.TempDir(), "trusted-hooks.json"), By: "tester"}
	h := workspaceHook(t, ws, "guard")
	data := map[string]any{"tool_name": "shell"}

	// No one to ask: skipped, with the command that approves it.
	e := newEngine(t, Options{Approvals: approvals}, h)
	out := emit(t, e, BeforeTool, data)
	if out.SystemMessage() != "" || len(out.Notices) != 1 || !strings.Contains(out.Notices[0], "ollm hooks trust guard") {
		t.Fatalf("an unapproved hook ran or was not reported: %+v", out)
	}

	// Asked and approved: runs and is recorded.
	var asked []ApprovalRequest
	ask := func(_ context.Context, r ApprovalRequest) (bool, error) { asked = append(asked, r); return true, nil }
	e = newEngine(t, Options{Approvals: approvals, Approve: ask}, h)
	if out = emit(t, e, BeforeTool, data); out.SystemMessage() != "ran" || len(asked) != 1 || asked[0].Changed {
		t.Fatalf("approval: %+v, asked %+v", out, asked)
	}
	emit(t, e, BeforeTool, data)
	if len(asked) != 1 {
		t.Fatalf("asked again for an approved hook")
	}
	rec, _ := store.LoadTrustedHooks(approvals.Path)
	if a, ok := rec.Lookup(h.ID()); !ok || a.Hash != asked[0].Hash || a.ApprovedBy != "tester" || a.ApprovedAt.IsZero() {
		t.Fatalf("approval not recorded: %+v", rec)
	}
	if fi, _ := os.Stat(approvals.Path); fi.Mode().Perm() != 0o600 {
		t.Errorf("trusted-hooks.json mode = %v, want 0600", fi.Mode().Perm())
	}

	// A new process without a terminal runs it from the record.
	e = newEngine(t, Options{Approvals: approvals}, h)
	if out = emit(t, e, BeforeTool, data); out.SystemMessage() != "ran" {
		t.Fatalf("approved hook did not run: %+v", out)
	}

	// Editing the script asks again.
	if err := os.WriteFile(filepath.Join(ws, "guard.sh"), []byte("#!/bin/bash\necho '{\"systemMessage\":\"edited\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out = emit(t, e, BeforeTool, data)
	if out.SystemMessage() != "" || !strings.Contains(out.Notices[0], "changed since it was approved") {
		t.Fatalf("an edited hook ran without re-approval: %+v", out)
	}
	e = newEngine(t, Options{Approvals: approvals, Approve: ask}, h)
	if out = emit(t, e, BeforeTool, data); out.SystemMessage() != "edited" || len(asked) != 2 || !asked[1].Changed {
		t.Fatalf("re-approval: %+v, asked %+v", out, asked)
	}
}

func TestRefusedApprovalSkips(t *testing.T) {
	h := workspaceHook(t, t.TempDir(), "guard")
	no := func(context.Context, ApprovalRequest) (bool, error) { return false, nil }
	e := newEngine(t, Options{Approve: no}, h)
	if out := emit(t, e, BeforeTool, map[string]any{}); out.SystemMessage() != "" || out.Results[0].Skipped == "" {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestTrustWorkspaceRunsWithoutAsking(t *testing.T) {
	h := workspaceHook(t, t.TempDir(), "guard")
	e := newEngine(t, Options{TrustWorkspace: true}, h)
	if out := emit(t, e, BeforeTool, map[string]any{}); out.SystemMessage() != "ran" {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestExtensionHashChangeAsksAgain(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hook.sh"), []byte("#!/bin/bash\necho '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := &Hook{Name: "h", Event: AfterTool, Scope: schema.ScopeStore, Extension: "ext", Root: filepath.Dir(dir), Dir: dir,
		Def: schema.Hook{Command: "./hook.sh"}}
	sum1, err := HookHash(h, "", HashDir)
	if err != nil || !strings.HasPrefix(sum1, "h1:") {
		t.Fatalf("hash = %q, %v", sum1, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum2, _ := HookHash(h, "", HashDir); sum2 == sum1 {
		t.Fatal("a changed extension tree kept its hash")
	}
	h.Hash = "h1:locked"
	if got, _ := HookHash(h, "", HashDir); got != "h1:locked" {
		t.Fatalf("a locked extension should use the lock's hash, got %q", got)
	}
}

func TestLooseHashCoversCommandAndScripts(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(dir, "s.py"), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("print('{}')")
	def := schema.Hook{Command: "python3", Args: []string{"s.py"}}
	a, _ := LooseHash(def, dir)
	write("print('{ }')")
	b, _ := LooseHash(def, dir)
	def.Args = []string{"s.py", "--flag"}
	c, _ := LooseHash(def, dir)
	shell := schema.Hook{Command: `"$CLAUDE_PROJECT_DIR"/s.py --x`}
	d, _ := LooseHash(shell, dir)
	write("changed")
	e, _ := LooseHash(shell, dir)
	if a == b || b == c || d == e {
		t.Fatalf("hashes should differ: %s %s %s %s %s", a, b, c, d, e)
	}
}

func TestIDIsStableAndDistinct(t *testing.T) {
	a := &Hook{Name: "n", Event: BeforeTool, Extension: "x", Root: "/r"}
	b := *a
	b.Def.Command = "changed"
	if a.ID() != b.ID() {
		t.Error("the id changed with the content")
	}
	for _, c := range []Hook{{Name: "m", Event: BeforeTool, Extension: "x", Root: "/r"},
		{Name: "n", Event: AfterTool, Extension: "x", Root: "/r"},
		{Name: "n", Event: BeforeTool, Extension: "y", Root: "/r"},
		{Name: "n", Event: BeforeTool, Extension: "x", Root: "/s"}} {
		if c.ID() == a.ID() {
			t.Errorf("%+v shares the id of %+v", c, a)
		}
	}
}

// An approval covers the files a hook's script sources or imports, also
// when the command line names the script only inside `sh -c "..."`: after
// an edit of one of them (as the shell tool could make) the hook is
// changed, is not run, and the notice names the command that approves it.
func TestApprovalCoversWhatTheScriptRuns(t *testing.T) {
	for _, tt := range []struct {
		name, cmd, lib, edit string
		files                map[string]string
	}{
		{"sourced", "sh scripts/guard.sh", "scripts/lib.sh", "mark() { touch ran; touch pwned; }\n", map[string]string{
			"scripts/guard.sh": ". scripts/lib.sh\ncat >/dev/null\nmark\necho '{}'\n",
			"scripts/lib.sh":   "mark() { touch ran; }\n",
		}},
		{"imported", "python3 -B pyhooks/guard.py", "pyhooks/pylib.py", "def mark():\n    open('ran', 'w').close()\n    open('pwned', 'w').close()\n", map[string]string{
			"pyhooks/guard.py": "import sys\nimport pylib\nsys.stdin.read()\npylib.mark()\nprint('{}')\n",
			"pyhooks/pylib.py": "def mark():\n    open('ran', 'w').close()\n",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			for name, body := range tt.files {
				p := filepath.Join(ws, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			mark := filepath.Join(ws, "ran") // the hook runs in ws
			approvals := FileApprovals{Path: filepath.Join(t.TempDir(), "trusted-hooks.json"), By: "tester"}
			h := &Hook{Name: "guard", Event: BeforeTool, Scope: schema.ScopeWorkspace, Root: ws, Dir: ws,
				Def: schema.Hook{Name: "guard", Command: "sh", Args: []string{"-c", tt.cmd}}}
			data := map[string]any{"tool_name": "shell"}
			e := newEngine(t, Options{Approvals: approvals, Approve: func(context.Context, ApprovalRequest) (bool, error) { return true, nil }}, h)
			emit(t, e, BeforeTool, data)
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("the approved hook did not run: %v", err)
			}
			os.Remove(mark)

			if err := os.WriteFile(filepath.Join(ws, tt.lib), []byte(tt.edit), 0o644); err != nil {
				t.Fatal(err)
			}
			e = newEngine(t, Options{Approvals: approvals}, h)
			out := emit(t, e, BeforeTool, data)
			if _, err := os.Stat(mark); err == nil {
				t.Fatalf("the hook ran after %s was edited", tt.lib)
			}
			if len(out.Notices) != 1 || !strings.Contains(out.Notices[0], "changed since it was approved") || !strings.Contains(out.Notices[0], "ollm hooks trust guard") {
				t.Fatalf("notices = %q, want the hook changed and `ollm hooks trust guard`", out.Notices)
			}
		})
	}
}

// A Python hook that imports a module beside it keeps its approval after
// its first run: hooks get PYTHONDONTWRITEBYTECODE=1, so no __pycache__
// appears in the directory its approval covers.
func TestPythonHookKeepsItsApproval(t *testing.T) {
	ws := t.TempDir()
	for name, body := range map[string]string{
		"pyhooks/guard.py": "import sys\nimport pylib\nsys.stdin.read()\npylib.mark()\nprint('{}')\n",
		"pyhooks/pylib.py": "def mark():\n    open('ran', 'a').write('x')\n",
	} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	approvals := FileApprovals{Path: filepath.Join(t.TempDir(), "trusted-hooks.json"), By: "tester"}
	h := &Hook{Name: "guard", Event: BeforeTool, Scope: schema.ScopeWorkspace, Root: ws, Dir: ws,
		Def: schema.Hook{Name: "guard", Command: "python3", Args: []string{"pyhooks/guard.py"}}}
	data := map[string]any{"tool_name": "shell"}
	e := newEngine(t, Options{Approvals: approvals, Approve: func(context.Context, ApprovalRequest) (bool, error) { return true, nil }}, h)
	emit(t, e, BeforeTool, data)
	e = newEngine(t, Options{Approvals: approvals}, h)
	out := emit(t, e, BeforeTool, data)
	if len(out.Notices) != 0 {
		t.Errorf("notices = %q", out.Notices)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "ran")); string(got) != "xx" {
		t.Errorf("the hook ran %d times, want 2 (the second without a new approval)", len(got))
	}
	if _, err := os.Stat(filepath.Join(ws, "pyhooks", "__pycache__")); err == nil {
		t.Error("the hook wrote __pycache__ into its approved directory")
	}
}
