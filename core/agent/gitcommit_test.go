package agent

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm/llmtest"
)

// A blocking on_git_commit hook (seed 003's on-git-commit, "before a git
// commit") refuses the shell call that would commit: the model reads the
// hook's reason and the repository has no new commit.
func TestBlockingGitCommit(t *testing.T) {
	f := newFixture(t)
	gitRepo(t, f.root)
	commits := func() string {
		t.Helper()
		out, err := exec.Command("git", "-C", f.root, "rev-list", "--count", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	before := commits()
	f.cfg.Hooks = engine(t, "s1", f.root, hook(t, "guard", hooks.OnGitCommit, "block.sh"))
	f.srv.Reply(llmtest.ToolCall("shell", map[string]any{"command": `git commit -q -m "sneaky"`}))
	f.srv.Reply(llmtest.Text("ok"))
	if _, err := f.session(t).Run(context.Background(), "commit it"); err != nil {
		t.Fatal(err)
	}
	tm := toolMessages(f.srv.Requests()[1])
	if len(tm) != 1 || !strings.Contains(tm[0].Content, "blocked by on_git_commit hook") || !strings.Contains(tm[0].Content, "no on_git_commit today") {
		t.Fatalf("tool result = %+v", tm)
	}
	if after := commits(); after != before {
		t.Fatalf("commits: %s before, %s after the blocked call", before, after)
	}
	if len(f.rec.of(EvBlocked)) != 1 {
		t.Fatalf("blocked events: %+v", f.rec.of(EvBlocked))
	}
}
