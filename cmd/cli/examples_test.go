package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every example profile validates; the README's first command works.
func TestExamplesValidate(t *testing.T) {
	dirs, _ := filepath.Glob("../../examples/*/ollm.cue")
	if len(dirs) == 0 {
		t.Fatal("no example profiles found under examples/")
	}
	for _, p := range dirs {
		dir := filepath.Dir(p)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			io, _, out, errOut := TestIO()
			home := t.TempDir()
			f := &Factory{IO: io, Getenv: func(k string) string {
				if k == "OLLM_HOME" {
					return home
				}
				return ""
			}, Environ: os.Environ, Getwd: os.Getwd, Context: context.Background()}
			code := Run(f, []string{"-C", dir, "profile", "validate"})
			if code != ExitOK || !strings.HasPrefix(out.String(), "ok:") {
				t.Fatalf("ollm -C %s profile validate = %d\n%s%s", dir, code, out, errOut)
			}
			// The committed lock is current: the README's first command
			// (profile apply) leaves the example unchanged.
			out.Reset()
			code = Run(f, []string{"-C", dir, "profile", "apply", "--locked", "--dry-run"})
			if code != ExitOK {
				t.Fatalf("ollm -C %s profile apply --locked --dry-run = %d\n%s%s", dir, code, out, errOut)
			}
		})
	}
}
