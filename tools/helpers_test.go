package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/store"
)

// fixture is a workspace in a temporary directory with the built-in tools.
type fixture struct {
	t     *testing.T
	root  string
	home  string // $HOME for git's global excludes
	env   map[string]string
	cfg   Config
	tools map[string]tool.Tool
}

func newFixture(t *testing.T, adjust ...func(*Config)) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{t: t, root: filepath.Join(base, "ws"), home: filepath.Join(base, "home"), env: map[string]string{}}
	mustMkdir(t, f.root)
	mustMkdir(t, f.home)
	f.env["HOME"] = f.home
	f.cfg = Config{
		Root:    f.root,
		Home:    store.Home{Dir: filepath.Join(base, "ollm-home")},
		Getenv:  func(k string) string { return f.env[k] },
		Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + f.home} },
	}
	for _, a := range adjust {
		a(&f.cfg)
	}
	f.rebuild()
	return f
}

func (f *fixture) rebuild() {
	f.tools = map[string]tool.Tool{}
	for _, t := range Builtin(f.cfg) {
		f.tools[t.Name()] = t
	}
}

// write creates files relative to the root: name -> content.
func (f *fixture) write(files map[string]string) {
	f.t.Helper()
	for name, content := range files {
		p := filepath.Join(f.root, filepath.FromSlash(name))
		mustMkdir(f.t, filepath.Dir(p))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(name)))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// build builds a call and fails the test on a build error.
func (f *fixture) build(name, params string) tool.Invocation {
	f.t.Helper()
	inv, err := f.buildErr(name, params)
	if err != nil {
		f.t.Fatalf("%s %s: build: %v", name, params, err)
	}
	return inv
}

func (f *fixture) buildErr(name, params string) (tool.Invocation, error) {
	f.t.Helper()
	tl, ok := f.tools[name]
	if !ok {
		f.t.Fatalf("no tool %s", name)
	}
	return tl.Build(json.RawMessage(params))
}

// call builds and runs a call; a build error becomes a failed Result, as
// the runtime shows it to the model.
func (f *fixture) call(name, params string) tool.Result {
	f.t.Helper()
	inv, err := f.buildErr(name, params)
	if err != nil {
		return tool.FromError(err, tool.ErrInvalidParams)
	}
	res, err := inv.Execute(context.Background(), nil)
	if err != nil {
		f.t.Fatalf("%s %s: execute: %v", name, params, err)
	}
	return res
}

// ok runs a call that must succeed and returns what the model gets.
func (f *fixture) ok(name, params string) string {
	f.t.Helper()
	res := f.call(name, params)
	if res.Error != nil {
		f.t.Fatalf("%s %s: %v", name, params, res.Error)
	}
	return res.ForModel
}

// fails runs a call that must fail with kind and a message containing want.
func (f *fixture) fails(name, params string, kind tool.ErrorKind, want string) tool.Result {
	f.t.Helper()
	res := f.call(name, params)
	if res.Error == nil || res.Error.Kind != kind || !strings.Contains(res.Error.Message, want) {
		f.t.Fatalf("%s %s = %+v; want a %s error containing %q", name, params, res, kind, want)
	}
	return res
}

func buildError(t *testing.T, err error, kind tool.ErrorKind, want string) {
	t.Helper()
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != kind || !strings.Contains(te.Message, want) {
		t.Fatalf("error = %v; want a %s error containing %q", err, kind, want)
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
