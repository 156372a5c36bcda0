package sandbox

import (
	"path/filepath"
	"testing"
)

func TestCleanIsFilepathClean(t *testing.T) {
	for _, p := range []string{"/", "//", "/a", "/a/", "/a//b", "/a/./b", "/a/../b", "/a/.", "/a/..", "/.a", "/..a", "/a/.b/c", "/a/..b", "/a/b.", "/a/b..", "a", "", "./a", "/./", "/../", "/a/b/"} {
		if got, want := clean(p), filepath.Clean(p); got != want {
			t.Errorf("clean(%q) = %q, want %q", p, got, want)
		}
	}
}
