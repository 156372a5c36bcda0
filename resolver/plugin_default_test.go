package resolver

import "testing"

func TestFolderName(t *testing.T) {
	for _, tc := range []struct{ url, subdir, want string }{
		{"https://example.invalid/team/hookify.git", "", "hookify"},
		{"git@example.invalid:team/guard.git", "", "guard"},
		{"/tmp/repos/nojson/", "", "nojson"},
		{"file:///tmp/market", "plugins/lint/", "lint"},
		{"https://example.invalid/team/market", "../x/review", "review"},
	} {
		if got := folderName(tc.url, tc.subdir); got != tc.want {
			t.Errorf("folderName(%q, %q) = %q, want %q", tc.url, tc.subdir, got, tc.want)
		}
	}
}
