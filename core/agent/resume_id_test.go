package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Resume takes a session id, never a path: `--resume ../evil` (or an
// editor's session/load) neither reads nor appends to a file outside the
// sessions directory.
func TestResumeRefusesPathIDs(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(home, "evil.jsonl")
	if err := os.WriteFile(evil, []byte("{\"type\":\"meta\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"../evil", "..", ".", "a/b", `..\evil`, "x\x00"} {
		_, _, _, err := Resume(dir, id, nil)
		if err == nil || !strings.Contains(err.Error(), "is not a session id") {
			t.Errorf("Resume(%q): %v", id, err)
		}
	}
	if b, _ := os.ReadFile(evil); string(b) != "{\"type\":\"meta\"}\n" {
		t.Fatalf("the file outside the sessions directory changed: %q", b)
	}
}
