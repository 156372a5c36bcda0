package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/sandbox"
)

// Moving a new .git aside goes through the directories as they are: a
// directory swapped for a link to another repository after the scan
// cannot make ollm move that repository's .git; a held name already
// there is not replaced.
func TestHoldNewGitDirsFollowsNoLink(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(root, "a", ".git"), filepath.Join(other, ".git"), filepath.Join(root, "b", ".git"), filepath.Join(root, "b", ".git"+sandbox.HeldSuffix)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := sandbox.GitDirsUnder(root, 100)
	// The race: a/ becomes a link to another repository after the scan.
	if err := os.RemoveAll(filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	held := sandbox.HoldNewGitDirs(root, nil, after)
	if len(held) != 2 {
		t.Fatalf("held %v", held)
	}
	for _, h := range held {
		switch filepath.Base(filepath.Dir(h.Path)) {
		case "a":
			if h.Err == nil || !strings.Contains(h.String(), "NOT moved aside") {
				t.Errorf("through the link: %+v", h)
			}
		case "b":
			if h.Err != nil || filepath.Base(h.To) != ".git"+sandbox.HeldSuffix+"-1" {
				t.Errorf("beside an earlier held one: %+v", h)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(other, ".git")); err != nil {
		t.Errorf("the other repository's .git was moved: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "b", ".git"+sandbox.HeldSuffix)); err != nil {
		t.Errorf("the earlier held one: %v", err)
	}
}
