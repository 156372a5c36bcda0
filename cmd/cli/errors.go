package cli

import (
	"errors"
	"fmt"

	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/resolver"
	"github.com/ollm/ollm/store"
)

// ExitCode is the process exit status.
type ExitCode int

// Exit codes. Scripts may rely on them; docs/cli.md lists them.
const (
	ExitOK        ExitCode = 0   // success
	ExitError     ExitCode = 1   // a command failed
	ExitConfig    ExitCode = 2   // invalid flags, profile, manifest or lock
	ExitSecurity  ExitCode = 3   // hash mismatch, untrusted code refused
	ExitBlocked   ExitCode = 4   // a hook or the policy blocked the operation
	ExitCancelled ExitCode = 130 // interrupted
)

// FlagError is a usage error: bad flags or arguments.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// ConfigError is an invalid configuration; its message already names the
// files and positions.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// SecurityError is a refused hash or trust check.
type SecurityError struct{ Err error }

func (e *SecurityError) Error() string { return e.Err.Error() }
func (e *SecurityError) Unwrap() error { return e.Err }

// BlockedError is an operation a hook or the policy stopped.
type BlockedError struct{ Err error }

func (e *BlockedError) Error() string { return e.Err.Error() }
func (e *BlockedError) Unwrap() error { return e.Err }

// SilentError exits non-zero without printing: the command said it already.
type SilentError struct{ Code ExitCode }

func (e *SilentError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ErrCancelled is returned when the user interrupts (the runtime's own,
// so a session interrupted while it starts maps the same way).
var ErrCancelled = runtime.ErrCancelled

// exitCodeFor maps an error to its exit code, in one place.
func exitCodeFor(err error) ExitCode {
	var (
		fe *FlagError
		ce *ConfigError
		se *SecurityError
		be *BlockedError
		si *SilentError
		te *store.TamperedError // a store entry changed after install, wherever it was loaded
		ck *store.ChecksumError // a fetched tree differs from the lock
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &si):
		return si.Code
	case errors.Is(err, ErrCancelled):
		return ExitCancelled
	case errors.As(err, &se), errors.As(err, &te), errors.As(err, &ck):
		return ExitSecurity
	case errors.As(err, &fe), errors.As(err, &ce), isConfig(err):
		return ExitConfig
	case errors.As(err, &be):
		return ExitBlocked
	default:
		return ExitError
	}
}

// isConfig reports the errors of other packages that mean an invalid
// configuration (exit 2), wherever they surface: a profile or manifest that
// does not validate, a missing manifest, a manifest whose name disagrees
// with the profile, an unreadable, malformed or stale lock.
func isConfig(err error) bool {
	var (
		pe *profiles.Error
		me *profiles.ManifestError
		le *resolver.LockError
		st *resolver.StaleError
		rc *runtime.ConfigError
	)
	return errors.As(err, &rc) || errors.As(err, &pe) || errors.As(err, &me) || errors.As(err, &le) || errors.As(err, &st) ||
		errors.Is(err, resolver.ErrNoManifest) || errors.Is(err, resolver.ErrNameMismatch) ||
		errors.Is(err, resolver.ErrChangedSinceLock)
}
