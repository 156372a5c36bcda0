package profiles

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/ollm/ollm/schema"
)

// The extensions the user installed for Gemini CLI (`gemini extensions
// install|link`) live in ~/.gemini/extensions, one folder each with its
// gemini-extension.json. They load as user extensions, found after ollm's
// own user directory and so below it: a same-named extension in
// $OLLM_HOME/extensions replaces the Gemini CLI copy. Gemini CLI keeps
// beside them:
//
//   - <ext>/.gemini-extension-install.json, the install metadata
//     ({"source", "type": git|local|link|github-release, ...}); a "link"
//     install is only that file, and the extension is at its source;
//   - extension-enablement.json, {"<name>": {"overrides": ["/path/*",
//     "!/path/*"]}}: path rules, "!" disabling, a trailing "*" covering
//     the subdirectories, the last match winning, enabled by default.
//
// An extension disabled there for the workspace stays off: it is not
// discovered. User extensions are never locked, so a link keeps following
// its source as Gemini CLI's does.

const (
	geminiInstallFile    = ".gemini-extension-install.json"
	geminiEnablementFile = "extension-enablement.json"
)

// geminiUserRoot is the root of the user's Gemini CLI extensions, whose
// enablement is judged for cwd (the workspace, else the directory ollm
// runs in).
func geminiUserRoot(opts Options) (root, bool) {
	d := GeminiUserDir()
	if d == "" {
		return root{}, false
	}
	cwd := opts.Workspace.Root
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	return root{scope: schema.ScopeUser, dir: filepath.Join(d, "extensions"), gemini: true, cwd: cwd}, true
}

// isGeminiUserRoot reports whether dir is the user's Gemini CLI
// extensions directory.
func isGeminiUserRoot(dir string) bool {
	d := GeminiUserDir()
	return d != "" && filepath.Clean(dir) == filepath.Join(d, "extensions")
}

// geminiLinked is where a `gemini extensions link` entry points: the
// absolute source of its install metadata when its type is "link".
func geminiLinked(dir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(dir, geminiInstallFile))
	if err != nil {
		return "", false
	}
	var m struct {
		Source string `json:"source"`
		Type   string `json:"type"`
	}
	if json.Unmarshal(data, &m) != nil || m.Type != "link" || !filepath.IsAbs(m.Source) {
		return "", false
	}
	return filepath.Clean(m.Source), true
}

// geminiDisabled reports whether Gemini CLI's enablement file disables
// the extension named in manifest data for cwd.
func geminiDisabled(r root, data []byte) bool {
	var m struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(data, &m) != nil || m.Name == "" {
		return false
	}
	raw, err := os.ReadFile(filepath.Join(r.dir, geminiEnablementFile))
	if err != nil {
		return false
	}
	var all map[string]struct {
		Overrides []string `json:"overrides"`
	}
	if json.Unmarshal(raw, &all) != nil {
		return false
	}
	return !geminiEnabledAt(all[m.Name].Overrides, r.cwd)
}

// geminiEnabledAt applies Gemini CLI's override rules to path.
func geminiEnabledAt(overrides []string, path string) bool {
	p := slashed(path)
	on := true
	for _, rule := range overrides {
		disable := strings.HasPrefix(rule, "!")
		base := strings.TrimPrefix(rule, "!")
		sub := strings.HasSuffix(base, "*")
		base = strings.TrimSuffix(base, "*")
		pat := "^" + regexp.QuoteMeta(base)
		if sub {
			pat = "^" + regexp.QuoteMeta(strings.TrimSuffix(base, "/")) + "(/.*)?$"
		} else {
			pat += "$"
		}
		if ok, _ := regexp.MatchString(pat, p); ok {
			on = !disable
		}
	}
	return on
}

// slashed is a path with forward slashes and a leading and trailing one,
// as Gemini CLI compares them.
func slashed(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// geminiDigest is a Gemini CLI extension's digest: its manifest, its
// hooks file and its policies count.
func geminiDigest(dir string, data []byte) string {
	h := sha256.New()
	h.Write(data)
	if hooks, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(GeminiHooksFile))); err == nil {
		h.Write([]byte{0})
		h.Write(hooks)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "policies", "*.toml"))
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		h.Write([]byte("\x00policy\x00" + filepath.Base(f) + "\x00"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}
