package sandbox

import (
	"bytes"
	"fmt"
	"os/exec"
)

// RunForTest starts cmd, which Wrap sandboxed, as ollm does (Start: the
// spawn, or the trampoline when OLLM_TEST_SANDBOX_TRAMPOLINE=1 asks, see
// TestTheTrampolineHolds) and waits for it. It fails when the process did
// not start the way the test run asks for.
func RunForTest(cmd *exec.Cmd) error {
	inProcess = !viaTrampoline
	defer func() { inProcess = true }()
	_, wrapped := specOf(cmd)
	p, err := Start(cmd)
	if err != nil {
		return err
	}
	if wrapped && p.own == viaTrampoline {
		_ = p.Wait()
		return fmt.Errorf("sandbox test: Start spawned the process itself: %v, the test run asks for %v", p.own, !viaTrampoline)
	}
	return p.Wait()
}

// CombinedForTest is RunForTest with stdout and stderr collected.
func CombinedForTest(cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := RunForTest(cmd)
	return out.Bytes(), err
}

// SignalsBySeccompForTest makes the specs Wrap writes until the returned
// function is called refuse signals with the seccomp filter of kernels
// before Landlock ABI 6 instead of Landlock's signal scope.
func SignalsBySeccompForTest() (restore func()) {
	signalsBySeccomp = true
	return func() { signalsBySeccomp = false }
}
