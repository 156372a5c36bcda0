package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/schema"
)

// TestTrustFileAskedEveryTime: under a policy that allows everything, a
// before_tool hook that allows and an on_approval_request hook that
// approves, a write to .git is still asked about, the dialog names the
// file and offers no "always", and an "always" answer saves nothing: the
// second write is asked again.
func TestTrustFileAskedEveryTime(t *testing.T) {
	f := newFixture(t)
	if err := os.MkdirAll(filepath.Join(f.root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.cfg.Bus = bus.New(bus.Options{})
	f.cfg.Hooks = engine(t, "s1", f.root, hook(t, "allow-tool", hooks.BeforeTool, "allow.sh"), hook(t, "approve", hooks.OnApprovalRequest, "allow.sh"))
	seen := answer(t, f.cfg.Bus, bus.AllowAlways)
	var saved []schema.PolicyRule
	f.cfg.OnAlwaysAllow = func(r []schema.PolicyRule) { saved = append(saved, r...) }
	f.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}))
	f.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": ".git/hooks/pre-push", "content": "#!/bin/sh\n"}))
	f.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": "a.txt", "content": "1"}))
	f.srv.Reply(llmtest.Text("ok"))
	if _, err := f.session(t).Run(context.Background(), "write"); err != nil {
		t.Fatal(err)
	}
	if len(*seen) != 2 {
		t.Fatalf("asked %d times, want 2 (the two .git writes, not a.txt): %+v", len(*seen), *seen)
	}
	for _, d := range *seen {
		if !strings.Contains(d.Description, "a file that decides what runs") || !strings.Contains(d.Trust, "belongs to git") || d.Always != "" || d.AlwaysNarrow != "" {
			t.Errorf("dialog: %q trust %q always %q", d.Description, d.Trust, d.Always)
		}
	}
	if len(saved) != 0 {
		t.Errorf("an always answer to a trust file saved %+v", saved)
	}
	for _, p := range []string{".git/hooks/pre-commit", ".git/hooks/pre-push", "a.txt"} {
		if _, err := os.Stat(filepath.Join(f.root, p)); err != nil {
			t.Errorf("%s: %v (the person allowed it)", p, err)
		}
	}
}

// TestTrustFileHeadless: with nobody to ask, the write is refused in yolo
// mode, the model reads why and how to do it by hand, the file is unchanged.
func TestTrustFileHeadless(t *testing.T) {
	f := newFixture(t)
	cfg := filepath.Join(f.root, ".git", "config")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Compile(schema.Policy{Mode: "yolo"}, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Policy = pol
	f.cfg.Bus = bus.New(bus.Options{})
	f.srv.Reply(llmtest.ToolCall("edit_file", map[string]any{"path": ".git/config", "edits": []any{map[string]any{"oldText": "[core]", "newText": "[core]\n\tfsmonitor = touch pwned"}}}))
	f.srv.Reply(llmtest.Text("ok"))
	rep, err := f.session(t).Run(context.Background(), "edit")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.ToolCalls) != 1 || !strings.Contains(rep.ToolCalls[0].Result, "refused: Edit .git/config (1 edit) - a file that decides what runs") ||
		!strings.Contains(rep.ToolCalls[0].Result, "no one can answer in this session") || !strings.Contains(rep.ToolCalls[0].Result, "by hand") {
		t.Fatalf("calls: %+v", rep.ToolCalls)
	}
	if b, _ := os.ReadFile(cfg); string(b) != "[core]\n" {
		t.Fatalf(".git/config = %q", b)
	}
}
