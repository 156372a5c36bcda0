// Package sandboxtest gives sandbox tests a place to run: a workspace, a
// fake home, $OLLM_HOME and a directory outside them, under the calling
// package's directory, with a temporary directory of their own, so that
// nothing the workspace-write preset may write (/tmp) holds them even when
// the checkout itself lies under /tmp. Test code only.
package sandboxtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/core/sandbox"
)

// Box is the directories of one test.
type Box struct {
	Root, WS, Home, OllmHome, Outside, Tmp string
}

// New makes a Box, or fails the test when the machine cannot sandbox.
func New(t testing.TB) *Box {
	t.Helper()
	if s := sandbox.Probe(); !s.Available() {
		t.Fatalf("this machine cannot sandbox: %s (the project's machines have Landlock; see docs/security.md)", s.Reason)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp(wd, ".sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	b := &Box{Root: root, WS: filepath.Join(root, "ws"), Home: filepath.Join(root, "home"),
		OllmHome: filepath.Join(root, "ollm-home"), Outside: filepath.Join(root, "outside"), Tmp: filepath.Join(root, "tmp")}
	// WS/.git marks WS as a repository's top: under a checkout, the
	// workspace lookup (store.FindWorkspace) would otherwise take the
	// checkout's root, which holds Outside.
	for _, d := range []string{b.WS, filepath.Join(b.WS, ".git"), b.Home, b.OllmHome, b.Outside, b.Tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// Env resolves policies in the box, with no environment variables.
func (b *Box) Env() sandbox.Env {
	return sandbox.Env{Workspace: b.WS, Home: b.Home, OllmHome: b.OllmHome, Temp: []string{b.Tmp}, Cache: SharedCache(), Getenv: func(string) string { return "" }}
}

// SharedCache is a private build cache the sandbox tests of every package
// share, kept between runs (one per user): a cold Go build cache costs
// ~30 s on the 2-core machine, once.
func SharedCache() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("ollm-sandbox-test-cache-%d", os.Getuid()))
}
