package profiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/store"
)

// env is a temporary OLLM_HOME and workspace.
type env struct {
	t    *testing.T
	home store.Home
	ws   store.Workspace
}

func newEnv(t *testing.T) *env {
	t.Helper()
	d := t.TempDir()
	return &env{t: t, home: store.Home{Dir: filepath.Join(d, "home")}, ws: store.Workspace{Root: filepath.Join(d, "ws")}}
}

// write creates a file under the env; paths starting with "home/" or "ws/"
// go to OLLM_HOME or the workspace.
func (e *env) write(rel, content string) string {
	e.t.Helper()
	var p string
	switch {
	case strings.HasPrefix(rel, "home/"):
		p = filepath.Join(e.home.Dir, rel[len("home/"):])
	case strings.HasPrefix(rel, "ws/"):
		p = filepath.Join(e.ws.Root, rel[len("ws/"):])
	default:
		p = rel
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// opts resolve as if the workspace were approved: the loader tests are
// about unification; trust_test.go tests the gate.
func (e *env) opts() Options {
	return Options{Home: e.home, Workspace: e.ws, NoCache: true, Ungated: true}
}

func manifestJSON(name string, extra string) string {
	s := `{"name": "` + name + `", "version": "1.0.0", "description": "test extension ` + name + `"`
	if extra != "" {
		s += ", " + extra
	}
	return s + "}\n"
}
