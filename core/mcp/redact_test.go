package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A stdio server that prints its secrets to stderr and exits: the error
// that quotes its stderr, and its status, show none of them. The secrets
// come from each place ollm knows them: the server's own env entry (set
// through ${VAR} from the process environment), the process environment,
// a sensitive extension setting and a URL password on its command line.
func TestStderrIsRedacted(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "leak.sh")
	if err := os.WriteFile(script, []byte(`#!/bin/sh
echo "starting with token=$MY_TOKEN parent=$PARENT_API_KEY setting=$EXT_SECRET_VALUE short=$PIN_TOKEN" >&2
echo "$PIN_TOKEN" >&2
echo "auth failed for $MY_TOKEN via https://bot:$EXT_SECRET_VALUE@example.test/x (pin $PIN_TOKEN in extension)" >&2
exit 3
`), 0o755); err != nil {
		t.Fatal(err)
	}
	const (
		token   = "tok-from-env-9f8e7d"
		parent  = "parent-key-123456"
		setting = "s3tt1ng-value"
	)
	spec := Spec{Name: "leaky", Extension: "e", Config: Config{
		Command: "sh", Args: []string{script, "https://bot:" + setting + "@example.test/x"}, Enabled: true,
		Env: map[string]string{"MY_TOKEN": "${SOURCE_OF_TOKEN}", "PIN_TOKEN": "x"},
	}, SettingsEnv: map[string]string{"EXT_SECRET_VALUE": setting}, SecretEnv: []string{"EXT_SECRET_VALUE"}}
	m := startManager(t, []Spec{spec}, Options{Environ: []string{
		"PATH=" + os.Getenv("PATH"), "SOURCE_OF_TOKEN=" + token, "PARENT_API_KEY=" + parent,
	}})
	st := m.Status()[0]
	t.Logf("error: %s\ncommand: %s", st.Error, st.Command)
	if st.State != StateFailed {
		t.Fatalf("state %s, want failed: %+v", st.State, st)
	}
	for _, text := range []string{st.Error, st.Command} {
		for _, secret := range []string{token, parent, setting} {
			if strings.Contains(text, secret) {
				t.Errorf("secret %q in %q", secret, text)
			}
		}
	}
	for _, want := range []string{
		"auth failed for [redacted] via https://bot:[redacted]@example.test/x (pin x in extension)",
		"status 3",
	} {
		if !strings.Contains(st.Error, want) {
			t.Errorf("error %q lacks %q", st.Error, want)
		}
	}
	if !strings.Contains(st.Command, "https://bot:[redacted]@example.test/x") {
		t.Errorf("command %q shows the URL password", st.Command)
	}
}

// A short secret is redacted when it is the whole stderr line quoted.
func TestStderrShortSecretWholeLine(t *testing.T) {
	spec := Spec{Name: "pin", Config: Config{
		Command: "sh", Args: []string{"-c", `echo "$PIN_TOKEN" >&2; exit 1`}, Enabled: true,
		Env: map[string]string{"PIN_TOKEN": "x"},
	}}
	m := startManager(t, []Spec{spec}, Options{Environ: []string{"PATH=" + os.Getenv("PATH")}})
	st := m.Status()[0]
	if !strings.Contains(st.Error, "before answering: [redacted]") {
		t.Errorf("error %q does not redact the whole-line short secret", st.Error)
	}
}

func TestServerLogIsPrivate(t *testing.T) {
	logs := filepath.Join(t.TempDir(), "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Name: "quiet", Config: Config{Command: "sh", Args: []string{"-c", "exit 1"}, Enabled: true}}
	m := startManager(t, []Spec{spec}, Options{LogDir: logs, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	for path, want := range map[string]os.FileMode{logs: 0o700, m.Status()[0].Log: 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %#o, want %#o", path, got, want)
		}
	}
}
