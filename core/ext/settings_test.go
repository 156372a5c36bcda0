package ext

import (
	"errors"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// Properties 20, 21 and 23: profile value, else envVar, else default;
// validated; a missing required setting is an error naming the extension
// and where to set it.
func TestResolveSettings(t *testing.T) {
	defs := []schema.Setting{
		{Name: "region", Description: "r", Type: "string", Enum: []any{"eu", "us"}, Default: "eu"},
		{Name: "token", Description: "t", EnvVar: "VAULT_TOKEN", Sensitive: true, Required: true, Pattern: "^tok-"},
		{Name: "retries", Description: "n", Type: "number", EnvVar: "RETRIES"},
		{Name: "verbose", Description: "v", Type: "boolean"},
	}
	cases := []struct {
		name    string
		profile map[string]any
		env     map[string]string
		want    map[string]any    // name -> value
		source  map[string]string // name -> source
		errs    []string          // substrings, one per expected error
	}{
		{name: "defaults and env", env: map[string]string{"VAULT_TOKEN": "tok-1", "RETRIES": "3"},
			want:   map[string]any{"region": "eu", "token": "tok-1", "retries": 3.0},
			source: map[string]string{"region": FromDefault, "token": FromEnv, "retries": FromEnv, "verbose": Unset}},
		{name: "profile wins over env", profile: map[string]any{"token": "tok-p", "region": "us", "verbose": true}, env: map[string]string{"VAULT_TOKEN": "tok-e"},
			want:   map[string]any{"token": "tok-p", "region": "us", "verbose": true},
			source: map[string]string{"token": FromProfile, "region": FromProfile, "verbose": FromProfile}},
		{name: "missing required", errs: []string{`extension vault: required setting "token" is not set; set the environment variable VAULT_TOKEN or settings.vault.token`}},
		{name: "enum", profile: map[string]any{"region": "mars", "token": "tok-1"}, errs: []string{`settings.vault.region: want one of "eu", "us", got "mars"`}},
		{name: "type", profile: map[string]any{"verbose": "yes", "token": "tok-1"}, errs: []string{`settings.vault.verbose: want true or false, got "yes"`}},
		{name: "env number", env: map[string]string{"RETRIES": "many", "VAULT_TOKEN": "tok-1"}, errs: []string{`environment variable RETRIES: want a number, got "many"`}},
		{name: "sensitive pattern hides value", profile: map[string]any{"token": "s3cr3t"}, errs: []string{`settings.vault.token: does not match the pattern ^tok- (the value is sensitive and not shown)`}},
		{name: "unknown key", profile: map[string]any{"token": "tok-1", "tokn": 1}, errs: []string{"settings.vault.tokn is not a setting of this extension"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vals, errs := ResolveSettings("vault", defs, c.profile, env(c.env))
			if len(errs) != len(c.errs) {
				t.Fatalf("errors = %v, want %d", errs, len(c.errs))
			}
			for i, want := range c.errs {
				if !strings.Contains(errs[i].Error(), want) {
					t.Errorf("error %q does not contain %q", errs[i], want)
				}
				if strings.Contains(errs[i].Error(), "s3cr3t") {
					t.Errorf("error %q shows the secret", errs[i])
				}
				var se *SettingError
				if !errors.As(errs[i], &se) || se.Extension != "vault" {
					t.Errorf("error %v is not a SettingError naming vault", errs[i])
				}
			}
			for _, v := range vals {
				if w, ok := c.want[v.Name]; ok && v.Value != w {
					t.Errorf("%s = %v, want %v", v.Name, v.Value, w)
				}
				if s, ok := c.source[v.Name]; ok && v.Source != s {
					t.Errorf("%s source = %s, want %s", v.Name, v.Source, s)
				}
			}
		})
	}
}

func TestEnvNamesAndSecrets(t *testing.T) {
	vals, errs := ResolveSettings("x", []schema.Setting{
		{Name: "api.url", Description: "u", Default: "http://x"},
		{Name: "key", Description: "k", EnvVar: "X_KEY", Sensitive: true, Default: "abc123"},
		{Name: "n", Description: "n", Type: "number", Default: 2.5},
	}, nil, env(nil))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	got := Env(vals)
	want := map[string]string{"OLLM_SETTING_API_URL": "http://x", "X_KEY": "abc123", "OLLM_SETTING_N": "2.5"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("env %s = %q, want %q", k, got[k], v)
		}
	}
	if s := Secrets(vals); len(s) != 1 || s[0] != "abc123" {
		t.Fatalf("Secrets = %v", s)
	}
	if r := Redact("token abc123 and abc1234", []string{"abc123", "abc1234"}); r != "token [redacted] and [redacted]" {
		t.Fatalf("Redact = %q", r)
	}
}

// Properties 18 and 19 at the decision level, plus requirement 20.
func TestWanted(t *testing.T) {
	ext := schema.Extension{Name: "a", Scope: schema.ScopeUser}
	flag := schema.Extension{Name: "a", Scope: schema.ScopeFlag}
	on := StateFile{Extensions: map[string]StateEntry{"a": {Enabled: true}}}
	off := StateFile{Extensions: map[string]StateEntry{"a": {Enabled: false}}}
	none := StateFile{}
	cases := []struct {
		name string
		cfg  schema.Extensions
		ext  schema.Extension
		st   StateFile
		want bool
		why  string
	}{
		{"all off", schema.Extensions{Enabled: false, AutoEnable: true}, ext, on, false, "extensions.enabled is false"},
		{"override off beats state", schema.Extensions{Enabled: true, Enable: map[string]bool{"a": false}}, ext, on, false, "extensions.enable.a is false"},
		{"override on beats state", schema.Extensions{Enabled: true, Enable: map[string]bool{"a": true}}, ext, off, true, "extensions.enable.a is true"},
		{"flag copy", schema.Extensions{Enabled: true}, flag, off, true, "--ext"},
		{"state on", schema.Extensions{Enabled: true}, ext, on, true, "ollm ext enable"},
		{"state off beats autoEnable", schema.Extensions{Enabled: true, AutoEnable: true}, ext, off, false, "ollm ext disable"},
		{"new, autoEnable", schema.Extensions{Enabled: true, AutoEnable: true}, ext, none, true, "autoEnable"},
		{"new, manual", schema.Extensions{Enabled: true}, ext, none, false, "run `ollm ext enable a`"},
	}
	for _, c := range cases {
		got, why := Wanted(c.cfg, c.ext, c.st)
		if got != c.want || !strings.Contains(why, c.why) {
			t.Errorf("%s: Wanted = %v, %q; want %v, %q", c.name, got, why, c.want, c.why)
		}
	}
}

func TestPrepare(t *testing.T) {
	x := schema.Extension{Name: "g", Dir: "/exts/g", Manifest: schema.Manifest{
		Hooks: map[string][]schema.Hook{"before_tool": {{Name: "h", Command: "${extensionPath}${/}hooks${/}h.sh",
			Args: []string{"${workspacePath}"}, Env: map[string]string{"P": "${extensionPath}"}}}},
		MCPServers: map[string]schema.MCPServer{"s": {Command: "./bin/server", Args: []string{"--root", "${workspacePath}", "${HOME}"}, Cwd: "data"}},
	}}
	orig := x.Manifest.Hooks["before_tool"][0].Command
	p := Prepare(x, "/ws")
	h := p.Manifest.Hooks["before_tool"][0]
	if h.Command != "/exts/g/hooks/h.sh" || h.Args[0] != "/ws" || h.Env["P"] != "/exts/g" {
		t.Fatalf("hook = %+v", h)
	}
	s := p.Manifest.MCPServers["s"]
	if s.Command != "/exts/g/bin/server" || s.Args[1] != "/ws" || s.Args[2] != "${HOME}" || s.Cwd != "/exts/g/data" {
		t.Fatalf("server = %+v", s)
	}
	if x.Manifest.Hooks["before_tool"][0].Command != orig {
		t.Fatal("Prepare changed its input")
	}
}

func TestRedactWholeValues(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		secrets  []string
		want     string
	}{
		{"one letter inside words is left", "extension x: setting \"key\" is invalid", []string{"x"}, "extension x: setting \"key\" is invalid"},
		{"one letter as the whole value", "x", []string{"x"}, Redacted},
		{"four letters anywhere", "hook said: pass=abcd!", []string{"abcd"}, "hook said: pass=[redacted]!"},
		{"longer first", "sk-1234567 and sk-1234", []string{"sk-1234", "sk-1234567"}, "[redacted] and [redacted]"},
		{"nested secret", "Bearer sk-live-abc", []string{"sk-live", "Bearer sk-live-abc"}, Redacted},
		{"no secrets", "nothing to hide", nil, "nothing to hide"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Redact(tc.in, tc.secrets); got != tc.want {
				t.Errorf("Redact(%q, %q) = %q, want %q", tc.in, tc.secrets, got, tc.want)
			}
		})
	}
}

// A one-letter sensitive value neither mangles a setting error nor shows
// where it occurs in it.
func TestShortSecretInSettingError(t *testing.T) {
	vals, errs := ResolveSettings("extension-x", []schema.Setting{
		{Name: "key", Description: "k", Sensitive: true, Pattern: "^[0-9]+$"},
	}, map[string]any{"key": "x"}, env(nil))
	if len(errs) != 1 {
		t.Fatalf("errs = %v", errs)
	}
	msg := errs[0].Error()
	if got := Redact(msg, append(Secrets(vals), "x")); got != msg {
		t.Errorf("Redact changed the error:\n got %q\nwant %q", got, msg)
	}
}
