package resolver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLockRefusesUnknownHashAlgorithm(t *testing.T) {
	const entry = `{"//": "x", "version": 1, "extensions": [{"name": "guard", "type": "git", "source": "../g", "commit": "%s", "hash": "%s"}]}`
	commit := strings.Repeat("a", 40)
	for _, tc := range []struct {
		name, hash, want string
	}{
		{"h1", "h1:" + strings.Repeat("A", 43) + "=", ""},
		{"sha256", "sha256:abc", `extensions: guard: unknown hash algorithm in "sha256:abc"`},
		{"empty", "", `extensions: guard: unknown hash algorithm in ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ollm.lock")
			data := strings.Replace(strings.Replace(entry, "%s", commit, 1), "%s", tc.hash, 1)
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadLock(path)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var le *LockError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("got %v, want a *LockError naming %s and %q", err, path, tc.want)
			}
		})
	}
}
