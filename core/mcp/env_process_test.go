package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/sandbox/sandboxtest"
)

// A stdio server's process gets ollm's environment by allow-list: with
// two dozen common credentials in ollm's environment, the server (a real
// process that records the environment it started with) sees none of
// them, but PATH, HOME, LANG and TERM, its extension's settings and its
// declared env, ${VAR} taken from ollm's environment on purpose.
func TestServerEnvByAllowList(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "record")
	spec := faultSpec(t, "envsrv", "env", "OLLM_MCP_FAULT_RECORD="+rec, "GH=${GITHUB_TOKEN}", "LEVEL=${LOG_LEVEL:-info}")
	spec.SettingsEnv = map[string]string{"DEPLOY_REGION": "eu-1"}
	environ := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=/home/dev", "LANG=C.UTF-8", "TERM=xterm-256color"},
		sandboxtest.CredentialEnviron()...)
	startManager(t, []Spec{spec}, Options{Environ: environ})
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("the server did not start: %v", err)
	}
	var env strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		if kv, ok := strings.CutPrefix(line, "env "); ok {
			env.WriteString("\n" + kv)
		}
	}
	got := env.String() + "\n"
	if leaks := sandboxtest.Leaks(got, "GITHUB_TOKEN"); len(leaks) > 0 || strings.Contains(got, "\nGITHUB_TOKEN=") {
		t.Errorf("the server sees %v (or GITHUB_TOKEN by name):\n%s", leaks, got)
	}
	for _, want := range []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/dev", "LANG=C.UTF-8", "TERM=xterm-256color",
		"DEPLOY_REGION=eu-1", "GH=" + sandboxtest.Credentials["GITHUB_TOKEN"], "LEVEL=info"} {
		if !strings.Contains(got, "\n"+want+"\n") {
			t.Errorf("the server's env lacks %s:\n%s", want, got)
		}
	}
}
