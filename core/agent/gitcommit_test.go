package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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

// on_git_commit's files include what the same command line stages first
// with git add (not yet staged when the hook runs), in git's meaning of
// each form; an add after the commit, or of a word that is not literal,
// adds nothing.
func TestCommitFilesStagedBySameLine(t *testing.T) {
	root := t.TempDir()
	gitRepo(t, root) // a.txt committed, s.txt staged
	for p, data := range map[string]string{"a.txt": "alpha changed\n", "new.txt": "n\n", "sub/b.txt": "b\n", "sub/c.go": "c\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ cmd, want string }{
		{`git commit -m x`, "s.txt"},
		{`git add new.txt && git commit -m x`, "new.txt s.txt"},
		{`git add -A && git commit -m x`, "a.txt new.txt s.txt sub/b.txt sub/c.go"},
		{`git add -u; git commit -m x`, "a.txt s.txt"},
		{`git add sub && git commit -m x`, "s.txt sub/b.txt sub/c.go"},
		{`git add '*.go' && git commit -m x`, "s.txt sub/c.go"},
		{`git -C sub add b.txt && git commit -m x`, "s.txt sub/b.txt"},
		{`git add -- new.txt && git commit -am x`, "a.txt new.txt s.txt"},
		{`git commit -m x && git add new.txt`, "s.txt"},
		{`git add "$F" && git commit -m x`, "s.txt"},
	} {
		if got := strings.Join(commitFiles(root, c.cmd), " "); got != c.want {
			t.Errorf("%s: files %q, want %q", c.cmd, got, c.want)
		}
	}
}
