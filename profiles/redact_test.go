package profiles

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	e := newEnv(t)
	e.write("home/extensions/sec/manifest.json", manifestJSON("sec", `"settings": [{"name": "apiKey", "description": "k", "sensitive": true, "default": "sk-default-secret"}, {"name": "level", "description": "l"}]`))
	e.write("home/profile.cue", `settings: sec: {apiKey: "sk-live-123", level: "high"}
mcp: servers: {
	a: {command: "x", env: {GITHUB_TOKEN: "ghp_literal", HOME_DIR: "/h", REF_TOKEN: "${GH}"}}
	b: {transport: "http", url: "http://127.0.0.1:1/", headers: {Authorization: "Bearer abc.def", "X-Ref": "${T}"}}
}
`)
	r, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	red := Redact(r)
	b, _ := json.Marshal(red)
	out := string(b)
	for _, secret := range []string{"sk-live-123", "ghp_literal", "abc.def", "sk-default-secret"} {
		if strings.Contains(out, secret) {
			t.Errorf("secret %q survives redaction", secret)
		}
	}
	for _, kept := range []string{`"level":"high"`, `"HOME_DIR":"/h"`, `"REF_TOKEN":"${GH}"`, `"X-Ref":"${T}"`} {
		if !strings.Contains(out, kept) {
			t.Errorf("redaction removed %s", kept)
		}
	}
	// The original is untouched.
	if r.Profile.Settings["sec"]["apiKey"] != "sk-live-123" {
		t.Error("Redact changed its input")
	}
}

func TestLooksSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "OPENAI_API_KEY": true, "DB_PASSWORD": true, "client-secret": true, "Authorization": true,
		"PATH": false, "HOME": false, "KEYBOARD": false, "TOKENIZER": false, "LANG": false,
	} {
		if got := LooksSecret(name); got != want {
			t.Errorf("LooksSecret(%q) = %v, want %v", name, got, want)
		}
	}
}
