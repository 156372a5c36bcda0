package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateManifest(t *testing.T) {
	for _, tc := range []struct {
		name, file, data string
		wantName         string
		wantErr          string // substring; "" for none
	}{
		{"valid", ManifestFile, `{"name": "guard", "version": "1.0.0", "description": "d"}`, "guard", ""},
		{"gemini", GeminiManifestFile, `{"name": "gem", "version": "1.0.0"}`, "gem", ""},
		{"bad type", ManifestFile, "{\"name\": \"guard\", \"version\": \"1.0.0\", \"description\": \"d\",\n \"mcpServers\": {\"s\": {\"command\": \"x\", \"timeout\": \"soon\"}}}",
			"", "invalid manifest: manifest.json:2:"},
		{"escaping path", ManifestFile, "{\"name\": \"guard\", \"version\": \"1.0.0\", \"description\": \"d\",\n \"hooks\": {\"before_tool\": [{\"name\": \"h\", \"command\": \"../../x.sh\"}]}}",
			"", "escapes the extension directory"},
		{"not JSON", ManifestFile, "{name", "", "manifest.json:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			file, m, err := ValidateManifest(dir)
			if tc.wantErr == "" {
				if err != nil || m.Name != tc.wantName || file != tc.file {
					t.Fatalf("got %q %q %v, want %q %q", file, m.Name, err, tc.file, tc.wantName)
				}
				return
			}
			var me *ManifestError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want a *ManifestError containing %q", err, tc.wantErr)
			}
		})
	}
	if _, _, err := ValidateManifest(t.TempDir()); !errors.Is(err, ErrNoManifest) {
		t.Fatalf("empty tree: got %v, want ErrNoManifest", err)
	}
}
