//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
)

// Support is what this machine offers.
type Support struct {
	ABI        int    `json:"landlockABI"`
	UserNS     bool   `json:"userNamespaces"`
	Trampoline bool   `json:"trampoline"`
	Reason     string `json:"reason,omitempty"`
}

// Available reports whether processes can be sandboxed at all.
func (s Support) Available() bool { return false }

// Describe is one line for doctor and warnings.
func (s Support) Describe() string { return "no sandbox: " + s.Reason }

// Probe reports what the system supports: nothing yet off Linux (the
// macOS design, sandbox-exec profiles, is in docs/security.md).
func Probe() Support {
	return Support{Reason: "ollm has no sandbox on " + runtime.GOOS + " yet"}
}

// ErrUnavailable is returned by Wrap when the machine cannot sandbox.
var ErrUnavailable = errors.New("sandbox unavailable")

// Wrap returns ErrUnavailable for any policy that is not Off.
func Wrap(cmd *exec.Cmd, p Policy) error {
	if p.Off() {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrUnavailable, Probe().Reason)
}

// Launch is a command line another program starts as it is (Linux only).
type Launch struct {
	Path string
	Args []string
	Env  []string
	Dir  string
}

// ExecArgs are ollm's arguments before "--" in a Launch.
var ExecArgs = []string{"acp", "terminal-exec"}

// External returns ErrUnavailable: no sandbox off Linux yet.
func External(argv []string, dir string, env []string, p Policy) (Launch, error) {
	return Launch{}, fmt.Errorf("%w: %s", ErrUnavailable, Probe().Reason)
}

// spawnable: Start always uses exec.Cmd off Linux.
func spawnable(cmd *exec.Cmd) (string, bool) { return "", false }

const envKey = "_OLLM_SANDBOX"

func withoutKey(env []string) []string { return env }
