package profiles

import (
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

func TestAddSource(t *testing.T) {
	src := schema.Source{Git: "https://example.invalid/guard.git", Ref: "v1.0.0"}
	for _, tc := range []struct {
		name, in string
		want     []string // substrings, in order
	}{
		{"new file", "", []string{"extensions: sources: {", `guard: {git: "https://example.invalid/guard.git", ref: "v1.0.0"}`, "}"}},
		{"keeps comments", "// team profile\nversion: 1 // pinned\n\n// the model\nmodel: name: \"m\"\n",
			[]string{"// team profile", "version: 1 // pinned", "// the model", `model: name: "m"`, "extensions: sources: {", "guard: {git:"}},
		{"into existing sources", "extensions: {\n\t// mine\n\tsources: {\n\t\tother: {path: \"./x\"} // local\n\t}\n}\n",
			[]string{"// mine", `other: {path: "./x"} // local`, `guard: {git: "https://example.invalid/guard.git", ref: "v1.0.0"}`}},
		{"replaces in place", "extensions: sources: {\n\tguard: {git: \"old\"} // keep me\n\tz: {path: \"z\"}\n}\n",
			[]string{`guard: {git: "https://example.invalid/guard.git", ref: "v1.0.0"}`, "z: {path:"}},
		{"into extensions without sources", "extensions: {\n\tautoEnable: true\n}\n",
			[]string{"autoEnable: true\n\tsources: guard: {git:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := AddSource("ollm.cue", []byte(tc.in), "guard", src)
			if err != nil {
				t.Fatal(err)
			}
			s := string(out)
			at := 0
			for _, w := range tc.want {
				i := strings.Index(s[at:], w)
				if i < 0 {
					t.Fatalf("missing %q after offset %d in:\n%s", w, at, s)
				}
				at += i + len(w)
			}
			if strings.Contains(s, `"old"`) {
				t.Fatalf("old value kept:\n%s", s)
			}
			// The result is a valid profile whose source is the one added.
			p := loadProfileBytes(t, out)
			if got := p.Extensions.Sources["guard"]; got != src {
				t.Fatalf("source = %+v\n%s", got, s)
			}
		})
	}
}

func TestAddSourceQuotesNames(t *testing.T) {
	out, err := AddSource("ollm.cue", nil, "my-ext", schema.Source{Path: "./ext"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"my-ext": {path: "./ext"}`) {
		t.Fatalf("got:\n%s", out)
	}
	if p := loadProfileBytes(t, out); p.Extensions.Sources["my-ext"].Path != "./ext" {
		t.Fatalf("sources = %+v", p.Extensions.Sources)
	}
}

func TestAddSourceSyntaxError(t *testing.T) {
	_, err := AddSource("ollm.cue", []byte("model: {\n"), "x", schema.Source{Path: "x"})
	if err == nil || !strings.Contains(err.Error(), "ollm.cue:") {
		t.Fatalf("err = %v", err)
	}
}

// loadProfileBytes resolves data as a workspace ollm.cue.
func loadProfileBytes(t *testing.T, data []byte) schema.Profile {
	t.Helper()
	e := newEnv(t)
	e.write("ws/ollm.cue", string(data))
	r, err := Load(e.opts())
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return r.Profile
}

func TestFindSource(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     schema.Source
		pos      string
		found    bool
	}{
		{"empty file", "", schema.Source{}, "", false},
		{"absent", "model: name: \"m\"\n", schema.Source{}, "", false},
		{"short form", "extensions: sources: guard: {git: \"../g\", ref: \"v1\"}\n", schema.Source{Git: "../g", Ref: "v1"}, "ollm.cue:1", true},
		{"second declaration", "extensions: autoEnable: true\nextensions: sources: {\n\tz: {path: \"z\"}\n\tguard: {path: \"./x\", subdir: \"a/b\"}\n}\n",
			schema.Source{Path: "./x", Subdir: "a/b"}, "ollm.cue:4", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, pos, found, err := FindSource("ollm.cue", []byte(tc.in), "guard")
			if err != nil {
				t.Fatal(err)
			}
			if src != tc.want || pos != tc.pos || found != tc.found {
				t.Fatalf("got %+v %q %v, want %+v %q %v", src, pos, found, tc.want, tc.pos, tc.found)
			}
		})
	}
	if _, _, _, err := FindSource("ollm.cue", []byte("extensions: {"), "guard"); err == nil {
		t.Fatal("a syntax error was accepted")
	}
}
