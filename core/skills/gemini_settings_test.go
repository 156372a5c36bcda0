package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Gemini CLI's settings.json, with comments and a URL holding "//", gives
// its context.fileName (a string or a list; the older contextFileName).
func TestGeminiContextNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	for _, tc := range []struct {
		json    string
		mdOnly  bool
		want    []string
		problem string
	}{
		{`{"context": {"fileName": "AGENTS.md"}}`, false, []string{"AGENTS.md"}, ""},
		{`{/* block */ "mcpServers": {"x": {"httpUrl": "http://h//p"}}, // line
		  "context": {"fileName": ["A.md", "notes.txt", "sub/B.md", ".."]}}`, false, []string{"A.md", "notes.txt"}, `"sub/B.md" left out`},
		{`{"context": {"fileName": ["A.md", ".env"]}}`, true, []string{"A.md"}, `".env" left out: a workspace's settings may name Markdown (.md) files only`},
		{`{"contextFileName": "OLD.md"}`, false, []string{"OLD.md"}, ""},
		{`{"context": {"fileName": 3}}`, false, nil, "want a file name or a list of file names"},
		{`{"context": `, false, nil, "fix the JSON"},
		{`{"theme": "dark"}`, false, nil, ""},
	} {
		os.WriteFile(path, []byte(tc.json), 0o644)
		got, probs := GeminiContextNames(path, tc.mdOnly)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: names %q, want %q", tc.json, got, tc.want)
		}
		if all := strings.Join(probs, "\n"); tc.problem == "" && all != "" || !strings.Contains(all, tc.problem) || tc.problem != "" && !strings.Contains(all, path) {
			t.Errorf("%s: problems %q, want %q naming the file", tc.json, probs, tc.problem)
		}
	}
	if got, probs := GeminiContextNames(filepath.Join(dir, "missing.json"), false); got != nil || probs != nil {
		t.Errorf("a missing file: %q %q", got, probs)
	}
}
