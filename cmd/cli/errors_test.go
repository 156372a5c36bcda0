package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/resolver"
	"github.com/ollm/ollm/store"
)

// The README's exit codes, checked against the errors that carry them.
func TestExitCodeFor(t *testing.T) {
	src := func(err error) error {
		return &resolver.SourceError{Kind: resolver.KindExtension, Name: "guard", Err: err}
	}
	for _, tc := range []struct {
		name string
		err  error
		want ExitCode
	}{
		{"nil", nil, ExitOK},
		{"plain", errors.New("boom"), ExitError},
		{"invalid manifest", src(&profiles.ManifestError{File: "manifest.json"}), ExitConfig},
		{"missing manifest", src(fmt.Errorf("%w: none", resolver.ErrNoManifest)), ExitConfig},
		{"name mismatch", src(fmt.Errorf("%w: other", resolver.ErrNameMismatch)), ExitConfig},
		{"lock", &resolver.LockError{File: "ollm.lock", Err: errors.New("unknown hash algorithm")}, ExitConfig},
		{"stale lock", &resolver.StaleError{File: "ollm.lock", Missing: true}, ExitConfig},
		{"invalid profile", &profiles.Error{}, ExitConfig},
		{"history rewritten", src(fmt.Errorf("%w: gone", resolver.ErrHistoryRewritten)), ExitError},
		{"checksum", &store.ChecksumError{}, ExitSecurity},
		{"security wins", &SecurityError{Err: &ConfigError{Err: errors.New("x")}}, ExitSecurity},
		{"blocked", &BlockedError{Err: errors.New("x")}, ExitBlocked},
		{"cancelled", ErrCancelled, ExitCancelled},
	} {
		if got := exitCodeFor(tc.err); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}
