package profiles

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
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

// TestRedactValues: values are replaced whole; a secret found by name is
// cut out of other values only when it is long enough, never out of words.
func TestRedactValues(t *testing.T) {
	ext := schema.Extension{Name: "e", Manifest: schema.Manifest{Settings: []schema.Setting{
		{Name: "pin", Sensitive: true}, {Name: "key", Sensitive: true}, {Name: "mode"},
	}}}
	for _, tc := range []struct {
		name     string
		settings map[string]any
		server   schema.MCPServer
		want     []string // substrings of the JSON output
		gone     []string
	}{
		{
			name:     "one-letter secret replaced whole, not inside words",
			settings: map[string]any{"pin": "x", "mode": "extended"},
			server:   schema.MCPServer{Command: "node", Args: []string{"-x", "x"}},
			want:     []string{`"pin":"[redacted]"`, `"mode":"extended"`, `"args":["-x","[redacted]"]`},
		},
		{
			name:     "long secret cut out of args and other values",
			settings: map[string]any{"key": "sk-live-123456", "mode": "use sk-live-123456"},
			server:   schema.MCPServer{Command: "node", Args: []string{"--token=sk-live-123456"}, Env: map[string]string{"PLAIN": "sk-live-123456"}},
			want:     []string{`"key":"[redacted]"`, `"mode":"use [redacted]"`, `"--token=[redacted]"`, `"PLAIN":"[redacted]"`},
			gone:     []string{"sk-live-123456"},
		},
		{
			name:   "secret-looking env and header names, references kept",
			server: schema.MCPServer{Env: map[string]string{"API_TOKEN": "t0k3n-value", "REF_TOKEN": "${GH}"}, Headers: map[string]string{"Authorization": "Bearer abc", "X-Ref": "Bearer ${T}"}},
			want:   []string{`"API_TOKEN":"[redacted]"`, `"REF_TOKEN":"${GH}"`, `"Authorization":"[redacted]"`, `"X-Ref":"Bearer ${T}"`},
			gone:   []string{"t0k3n-value", "Bearer abc"},
		},
		{
			name:   "URL userinfo password",
			server: schema.MCPServer{Transport: "http", URL: "https://me:hunter2@mcp.example.test/mcp"},
			want:   []string{`"url":"https://me:[redacted]@mcp.example.test/mcp"`},
			gone:   []string{"hunter2"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &schema.Resolved{Extensions: []schema.Extension{ext}}
			r.Profile.Settings = map[string]map[string]any{"e": tc.settings}
			r.Profile.MCP.Servers = map[string]schema.MCPServer{"s": tc.server}
			b, _ := json.Marshal(Redact(r))
			out := string(b)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %s in %s", w, out)
				}
			}
			for _, g := range tc.gone {
				if strings.Contains(out, g) {
					t.Errorf("%q survives in %s", g, out)
				}
			}
			if strings.Contains(out, "e[redacted]") || strings.Contains(out, "[redacted]tended") {
				t.Errorf("a short secret was replaced inside a word: %s", out)
			}
		})
	}
}
