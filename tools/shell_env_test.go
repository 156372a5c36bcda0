package tools

import (
	"os"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/sandbox/sandboxtest"
	"github.com/ollm/ollm/schema"
)

// TestShellEnvByAllowList runs env in the shell tool with two dozen common
// credentials in ollm's environment: none reaches the command, whatever
// its name or value, but what tools.shell.allowEnv names does, and so do
// PATH, HOME, LANG and TERM.
func TestShellEnvByAllowList(t *testing.T) {
	environ := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=/home/dev", "LANG=C.UTF-8", "TERM=xterm-256color",
		"GOPATH=/home/dev/go", "PLAIN_URL=https://docs.example/guide", "KEPT_URL=https://u:kept-0008@git.example/",
		"https_proxy=http://u:proxypw-0009@proxy.example:3128"}, sandboxtest.CredentialEnviron()...)
	f := newFixture(t, func(c *Config) {
		c.Tools.Shell = schema.Shell{Timeout: 60000, AllowEnv: []string{"KEPT_URL", "ACME_*"}}
		c.Environ = func() []string { return environ }
	})
	env := "\n" + f.ok("shell", `{"command":"env"}`)
	if leaks := sandboxtest.Leaks(env, "ACME_DEPLOY_KEY"); len(leaks) > 0 {
		t.Errorf("the shell tool's command sees %v:\n%s", leaks, env)
	}
	for _, want := range []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/dev", "LANG=C.UTF-8", "TERM=xterm-256color",
		"GOPATH=/home/dev/go", "KEPT_URL=https://u:kept-0008@git.example/", "ACME_DEPLOY_KEY=leak-acme-0024"} {
		if !strings.Contains(env, "\n"+want+"\n") {
			t.Errorf("env lacks %s:\n%s", want, env)
		}
	}
	for _, gone := range []string{"PLAIN_URL", "proxypw-0009"} {
		if strings.Contains(env, gone) {
			t.Errorf("env shows %s:\n%s", gone, env)
		}
	}
}
