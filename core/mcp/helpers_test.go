package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ollm/ollm/core/tool"
)

// npmDir finds the npm reference servers that `make deps` installs.
func npmDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("OLLM_NPM_DIR"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "node_modules")); err == nil {
			return d
		}
		t.Fatalf("OLLM_NPM_DIR=%s holds no node_modules; run make deps", d)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, ".deps", "npm")
		if _, err := os.Stat(filepath.Join(cand, "node_modules")); err == nil {
			return cand
		}
		if filepath.Dir(d) == d {
			t.Fatal("the MCP reference servers are not installed; run make deps")
		}
	}
}

func serverScript(t testing.TB, pkg, file string) string {
	p := filepath.Join(npmDir(t), "node_modules", "@modelcontextprotocol", pkg, "dist", file)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s: %v; run make deps", p, err)
	}
	return p
}

func everythingStdio(t testing.TB, name string) Spec {
	return Spec{Name: name, Config: Config{
		Command: "node", Args: []string{serverScript(t, "server-everything", "index.js"), "stdio"}, Enabled: true,
	}}
}

// startManager starts specs and waits until each has settled.
func startManager(t testing.TB, specs []Spec, opts Options) *Manager {
	t.Helper()
	if opts.LogDir == "" {
		opts.LogDir = t.TempDir()
	}
	m := New(specs, opts)
	m.Start()
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return m
}

func mustLookup(t testing.TB, m *Manager, name string) tool.Tool {
	t.Helper()
	tl, ok := m.Lookup(name)
	if !ok {
		var names []string
		for _, x := range m.Tools() {
			names = append(names, x.Name())
		}
		t.Fatalf("no tool %q; have %v; status %+v", name, names, m.Status())
	}
	return tl
}

// run builds and executes a tool call.
func run(t testing.TB, tl tool.Tool, params string, out func(tool.Chunk)) tool.Result {
	t.Helper()
	inv, err := tl.Build([]byte(params))
	if err != nil {
		t.Fatalf("%s: build %s: %v", tl.Name(), params, err)
	}
	res, err := inv.Execute(context.Background(), out)
	if err != nil {
		t.Fatalf("%s: %v", tl.Name(), err)
	}
	return res
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
