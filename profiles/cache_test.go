package profiles

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// A cache entry holds a resolved profile, settings values included: 0600
// in a 0700 directory, also when the directory was left wider before.
func TestCacheModes(t *testing.T) {
	h := store.Home{Dir: t.TempDir()}
	r := &schema.Resolved{}
	r.Profile.Settings = map[string]map[string]any{"e": {"apiKey": "sk-live-123"}}
	for _, key := range []string{"k1", "k2"} {
		writeCache(h, key, r, nil)
		for path, want := range map[string]os.FileMode{
			filepath.Dir(cachePath(h, key)): 0o700,
			cachePath(h, key):               0o600,
		} {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != want {
				t.Errorf("%s: mode %#o, want %#o", path, got, want)
			}
		}
		// The next write finds the directory opened up and tightens it.
		if err := os.Chmod(filepath.Dir(cachePath(h, key)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
