package profiles

import (
	"strings"
	"testing"
)

// Defaults compose across layers: the highest layer's default wins over a
// lower one's (the builtin's *"qwen3:8b") and over the schema's (*120000),
// a plain value in any layer wins over every default, and two plain values
// still conflict, naming both files.
func TestDefaultsCompose(t *testing.T) {
	for _, tc := range []struct {
		user, ws string
		model    string
		timeout  int
		err      string
	}{
		{"", `model: name: *"llama3.2" | string`, "llama3.2", 120000, ""},
		{`model: name: "mistral"`, `model: name: *"llama3.2" | string`, "mistral", 120000, ""},
		{`model: name: *"mistral" | string`, `model: name: *"llama3.2" | string`, "llama3.2", 120000, ""},
		{`model: name: "mistral"`, `model: name: "llama3.2"`, "", 0, `model.name: conflicting values "llama3.2" and "mistral"`},
		{"", `tools: shell: timeout: *60000 | int`, "qwen3:8b", 60000, ""},
		{`tools: shell: timeout: 5000`, `tools: shell: timeout: *60000 | int`, "qwen3:8b", 5000, ""},
		{`tools: shell: timeout: *5000 | int`, `tools: shell: timeout: (*60000 | int)`, "qwen3:8b", 60000, ""},
		{"", `skills: *[{name: "review", description: "r", prompt: "p"}] | [...]`, "qwen3:8b", 120000, ""},
	} {
		e := newEnv(t)
		if tc.user != "" {
			e.write("home/profile.cue", tc.user+"\n")
		}
		e.write("ws/ollm.cue", tc.ws+"\n")
		r, err := Load(e.opts())
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "profile.cue") || !strings.Contains(err.Error(), "ollm.cue") {
				t.Errorf("%s / %s: err = %v, want %q naming both files", tc.user, tc.ws, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s / %s: %v", tc.user, tc.ws, err)
			continue
		}
		if p := r.Profile; p.Model.Name != tc.model || p.Tools.Shell.Timeout != tc.timeout {
			t.Errorf("%s / %s: model %q timeout %d, want %q %d", tc.user, tc.ws, p.Model.Name, p.Tools.Shell.Timeout, tc.model, tc.timeout)
		}
	}
}
