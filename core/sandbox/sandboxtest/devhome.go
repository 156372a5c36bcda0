package sandboxtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Home is a fixture home laid out like a developer's: toolchain and cache
// directories whose contents run outside the sandbox later, credential
// files, and a shell startup file. Each credential holds a marker of its
// own, so a test can tell which one leaked.
type Home struct {
	Dir string
	// Secrets maps each credential file to its marker.
	Secrets map[string]string
	// Executed are directories whose contents something outside the
	// sandbox runs later (installed tools, module and npx caches, gradle
	// init scripts): nothing may be written in them.
	Executed []string
	// Tool is an installed program in ~/go/bin (a shell script).
	Tool string
}

// DevHome lays out box.Home as a developer's home and returns it.
func DevHome(t testing.TB, b *Box) *Home {
	t.Helper()
	h := &Home{Dir: b.Home, Secrets: map[string]string{}}
	j := func(p string) string { return filepath.Join(b.Home, p) }
	for _, d := range []string{"go/bin", "go/pkg/mod/cache/download", "go/pkg/mod/example.com/tool@v1.0.0", ".cargo/bin", ".cargo/registry/src",
		".npm/_npx", ".gradle/init.d", ".m2/repository", ".local/bin"} {
		if err := os.MkdirAll(j(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.Executed = []string{j("go/bin"), j("go/pkg/mod"), j("go/pkg/mod/example.com/tool@v1.0.0"), j(".cargo/bin"), j(".cargo/registry/src"),
		j(".npm/_npx"), j(".gradle/init.d"), j(".m2"), j(".m2/repository"), j(".local/bin")}
	h.Tool = j("go/bin/mytool")
	write(t, h.Tool, "#!/bin/sh\necho the real tool\n", 0o755)
	write(t, j("go/pkg/mod/example.com/tool@v1.0.0/tool.go"), "package tool\n", 0o444)
	for rel, marker := range map[string]string{
		".cargo/credentials.toml":               "MARKER-CARGO-TOKEN",
		".m2/settings.xml":                      "MARKER-MAVEN-PASSWORD",
		".pgpass":                               "MARKER-PGPASS",
		".my.cnf":                               "MARKER-MYCNF",
		".cache/huggingface/token":              "MARKER-HF-TOKEN",
		".claude/.credentials.json":             "MARKER-CLAUDE",
		".codex/auth.json":                      "MARKER-CODEX",
		".ollama/id_ed25519":                    "MARKER-OLLAMA-KEY",
		".config/google-chrome/Default/Cookies": "MARKER-CHROME-COOKIES",
		".ssh/id_ed25519":                       "MARKER-SSH-KEY",
		".bashrc":                               "export MARKER_BASHRC_API_KEY=1",
		".gradle/gradle.properties":             "MARKER-GRADLE-PASSWORD",
	} {
		p := j(rel)
		write(t, p, marker+"\n", 0o600)
		h.Secrets[p] = marker
	}
	write(t, j(".gitconfig"), "[user]\n\tname = Dev\n\temail = dev@example.invalid\n", 0o644)
	return h
}

// Leaked are the markers of the credentials that appear in out.
func (h *Home) Leaked(out string) []string {
	var leaked []string
	for p, m := range h.Secrets {
		if strings.Contains(out, m) {
			leaked = append(leaked, p)
		}
	}
	return leaked
}

func write(t testing.TB, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}
