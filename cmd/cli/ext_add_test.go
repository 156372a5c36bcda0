package cli

import "testing"

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
