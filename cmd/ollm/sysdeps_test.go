package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `make sys-deps` says what it installs and with which command before it
// runs it: on a machine missing the packages, as a normal user, the
// announcement names the packages and `sudo apt-get install`, and comes
// before the first sudo. Real make and sh run the real Makefile; only
// id, sudo and apt-get are stand-ins (sudo and apt-get record what they
// were asked, in order, in the same output).
func TestSysDepsAnnounces(t *testing.T) {
	bin := t.TempDir()
	for _, p := range []string{"make", "sh"} {
		real, err := exec.LookPath(p)
		if err != nil {
			t.Fatalf("%s is needed to run the Makefile: %v", p, err)
		}
		if err := os.Symlink(real, filepath.Join(bin, p)); err != nil {
			t.Fatal(err)
		}
	}
	script := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script("id", "echo 1000")
	script("sudo", `echo "ran: sudo $*"; "$@"`)
	script("apt-get", `echo "ran: apt-get $*"`)

	run := func() (string, error) {
		cmd := exec.Command(filepath.Join(bin, "make"), "-s", "--no-print-directory", "-C", "../..", "sys-deps")
		cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run()
	if err != nil {
		t.Fatalf("make sys-deps: %v\n%s", err, out)
	}
	want := "make sys-deps: installing tmux openssh-client procps (needed by the tests) with: sudo apt-get install -y tmux openssh-client procps\n" +
		"ran: sudo apt-get update -qq\nran: apt-get update -qq\n" +
		"ran: sudo apt-get install -y -qq tmux openssh-client procps\nran: apt-get install -y -qq tmux openssh-client procps\n"
	if out != want {
		t.Errorf("make sys-deps printed:\n%s\nwant:\n%s", out, want)
	}

	// Everything present: nothing printed, nothing run.
	for _, p := range []string{"tmux", "ssh-agent", "pgrep"} {
		script(p, "exit 0")
	}
	if out, err := run(); err != nil || out != "" {
		t.Errorf("with the packages present, make sys-deps printed %q (%v), want nothing", out, err)
	}

	// No apt-get: it names the packages and leaves them to the user.
	os.Remove(filepath.Join(bin, "apt-get"))
	os.Remove(filepath.Join(bin, "tmux"))
	out, err = run()
	if err == nil || !strings.Contains(out, "no apt-get: install them yourself: tmux") || strings.Contains(out, "ran:") {
		t.Errorf("without apt-get, make sys-deps printed %q (%v), want the package to install by hand and an error", out, err)
	}
}
