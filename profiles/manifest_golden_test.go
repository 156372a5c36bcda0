package profiles

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite golden files")

var schemaLine = regexp.MustCompile(`(<schema>/[a-z]+\.cue):\d+:\d+`)

// TestManifestGolden pins what compiler.manifest makes of every manifest
// in testdata/manifests.txtar: the diagnostics the user reads (position,
// path, message) or, for a valid manifest, the decoded schema.Manifest
// with its defaults applied.
func TestManifestGolden(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/manifests.txtar")
	if err != nil {
		t.Fatal(err)
	}
	c, err := newCompiler()
	if err != nil {
		t.Fatal(err)
	}
	manifestMemo.reset()
	got := goldenOutput(t, ar, c)
	if again := goldenOutput(t, ar, c); again != got { // from manifestMemo
		t.Errorf("a manifest remembered in manifestMemo reads differently:\n%s", lineDiff(got, again))
	}
	const golden = "testdata/manifests.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("compiler.manifest output differs from %s (go test ./profiles -run TestManifestGolden -update, then review the diff):\n%s", golden, lineDiff(string(want), got))
	}
}

func goldenOutput(t *testing.T, ar *txtar.Archive, c *compiler) string {
	var out bytes.Buffer
	for _, f := range ar.Files {
		format := "ollm"
		if filepath.Base(f.Name) == GeminiManifestFile {
			format = "gemini"
		}
		fmt.Fprintf(&out, "== %s\n", f.Name)
		m, diags := c.manifest(f.Name, f.Data, format)
		if len(diags) == 0 {
			data, err := json.MarshalIndent(m, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			out.Write(append(data, '\n'))
			continue
		}
		for _, d := range diags {
			// A position in the schema is replaced by the manifest's file
			// when shown (manifestProblems); its line is left out here so
			// that edits of the schema do not break this test.
			line := fmt.Sprintf("pos=%s path=%s\n  %s\n", d.Pos, d.Path, d.String())
			out.WriteString(schemaLine.ReplaceAllString(line, "$1"))
		}
	}
	return out.String()
}

// lineDiff lists the lines that differ, by line number.
func lineDiff(want, got string) string {
	w, g := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	var b bytes.Buffer
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl []byte
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if !bytes.Equal(wl, gl) {
			fmt.Fprintf(&b, "%d:\n  - %s\n  + %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}
