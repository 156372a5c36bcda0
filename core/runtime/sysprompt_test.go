package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/ext"
)

func TestSystemPrompt(t *testing.T) {
	root, extDir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Run `make test` before you finish.\n"), 0o644)
	os.WriteFile(filepath.Join(extDir, "GEMINI.md"), []byte(strings.Repeat("x", maxContextFile+10)), 0o644)
	got := systemPrompt(root, []ext.Info{
		{Name: "gem", Dir: extDir, Context: "GEMINI.md", Active: true},
		{Name: "off", Dir: extDir, Context: "GEMINI.md", Active: false},
	})
	for _, want := range []string{"working in the project at " + root, "## Project instructions (AGENTS.md)", "Run `make test`",
		"## Context from extension gem (GEMINI.md)", "[GEMINI.md cut at 64 KiB]"} {
		if !strings.Contains(got, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if strings.Contains(got, "extension off") {
		t.Error("an inactive extension's context reached the prompt")
	}
}
