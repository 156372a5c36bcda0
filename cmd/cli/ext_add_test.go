package cli

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSplitRef(t *testing.T) {
	for _, tc := range []struct{ in, url, ref string }{
		{"https://example.invalid/x/guard.git@v1.2.0", "https://example.invalid/x/guard.git", "v1.2.0"},
		{"https://example.invalid/x/guard.git", "https://example.invalid/x/guard.git", ""},
		{"git@example.invalid:team/tools.git", "git@example.invalid:team/tools.git", ""},
		{"git@example.invalid:team/tools.git@main", "git@example.invalid:team/tools.git", "main"},
		{"ssh://git@example.invalid/team/tools.git", "ssh://git@example.invalid/team/tools.git", ""},
		{"../guard@dev", "../guard", "dev"},
		{"file:///tmp/repo", "file:///tmp/repo", ""},
	} {
		url, ref := splitRef(tc.in)
		if url != tc.url || ref != tc.ref {
			t.Errorf("splitRef(%q) = %q, %q; want %q, %q", tc.in, url, ref, tc.url, tc.ref)
		}
	}
}

func TestExpandShorthand(t *testing.T) {
	wd := t.TempDir()
	if err := os.MkdirAll(filepath.Join(wd, "plugins", "guard"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{"obra/superpowers", "https://" + shorthandHost + "/obra/superpowers.git"},
		{"team/tools.git", "https://" + shorthandHost + "/team/tools.git"},
		{"plugins/guard", "plugins/guard"}, // a local folder wins
		{"./team/tools", "./team/tools"},
		{"../guard", "../guard"},
		{"a/b/c", "a/b/c"},
		{"team/..", "team/.."},
		{"-x/y", "-x/y"},
		{"https://example.invalid/x/y", "https://example.invalid/x/y"},
		{"git@example.invalid:team/tools.git", "git@example.invalid:team/tools.git"},
		{"/abs/path", "/abs/path"},
	} {
		if got := expandShorthand(tc.in, wd); got != tc.want {
			t.Errorf("expandShorthand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
