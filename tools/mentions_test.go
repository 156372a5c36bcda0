package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// The files offered as @mentions honour .gitignore and skip .git, hidden
// names and symlinks (a link out of the workspace is never offered).
func TestWorkspaceFiles(t *testing.T) {
	root := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for name, body := range map[string]string{
		".gitignore":     "build/\n*.log\n",
		"main.go":        "package main\n",
		"src/util.go":    "package src\n",
		"build/out.bin":  "x",
		"debug.log":      "x",
		".env":           "SECRET=1",
		"docs/guide.md":  "# guide",
		"docs/notes.log": "x",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc", filepath.Join(root, "etc")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	got, more, err := WorkspaceFiles(context.Background(), root, 0)
	if err != nil || more {
		t.Fatal(err, more)
	}
	want := []string{"docs/", "docs/guide.md", "main.go", "src/", "src/util.go"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got, more, _ = WorkspaceFiles(context.Background(), root, 2)
	if len(got) != 2 || !more {
		t.Errorf("limit 2: %q more=%v", got, more)
	}
}

// BenchmarkWorkspaceFiles lists GOROOT (about 15,000 entries) up to the
// TUI's limit of 10,000, as the "@" menu does when it opens.
func BenchmarkWorkspaceFiles(b *testing.B) {
	root := runtime.GOROOT()
	for b.Loop() {
		if _, _, err := WorkspaceFiles(context.Background(), root, 10000); err != nil {
			b.Fatal(err)
		}
	}
}
